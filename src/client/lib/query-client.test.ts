import { describe, expect, it } from 'vitest';
import { createQueryClient, retryDelay } from './query-client.ts';

describe('query defaults (spec section 9)', () => {
  it('backs off 1 s, doubling, capped at 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map(retryDelay)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('retries a failing query 3 times and a mutation never', async () => {
    const client = createQueryClient();
    client.setDefaultOptions({ queries: { ...client.getDefaultOptions().queries, retryDelay: 1 } });
    let queryCalls = 0;
    await expect(
      client.fetchQuery({
        queryKey: ['failing'],
        queryFn: () => {
          queryCalls += 1;
          throw new Error('down');
        },
        retry: client.getDefaultOptions().queries?.retry,
      }),
    ).rejects.toThrow('down');
    expect(queryCalls).toBe(4);

    let mutationCalls = 0;
    const mutationClient = createQueryClient();
    const mutation = mutationClient.getMutationCache().build(mutationClient, {
      mutationFn: async () => {
        mutationCalls += 1;
        throw new Error('refused');
      },
    });
    await expect(mutation.execute(undefined)).rejects.toThrow('refused');
    expect(mutationCalls).toBe(1);
  });

  it('never retries a 4xx answer (the same request gets the same refusal), and retries a 5xx 3 times', async () => {
    const client = createQueryClient();
    const calls = async (httpStatus: number) => {
      let count = 0;
      await expect(
        client.fetchQuery({
          queryKey: ['refused', httpStatus],
          queryFn: () => {
            count += 1;
            throw Object.assign(new Error(`answered ${httpStatus}`), { data: { httpStatus } });
          },
          retry: client.getDefaultOptions().queries?.retry,
          retryDelay: 1,
        }),
      ).rejects.toThrow(`answered ${httpStatus}`);
      return count;
    };
    expect(await calls(400)).toBe(1);
    expect(await calls(404)).toBe(1);
    expect(await calls(503)).toBe(4);
  });

  it('keeps answers fresh 10 s and unused ones 5 min, refetching on focus, mount and reconnect', () => {
    const queries = createQueryClient().getDefaultOptions().queries!;
    expect(queries).toMatchObject({
      staleTime: 10_000,
      gcTime: 300_000,
      refetchOnWindowFocus: true,
      refetchOnMount: true,
      refetchOnReconnect: true,
    });
  });
});
