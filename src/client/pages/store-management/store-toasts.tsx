import { TRPCClientError } from '@trpc/client';
import type { TFunction } from 'i18next';
import type { z } from 'zod';
import { DASHBOARD_LIMIT_REACHED_MESSAGE } from '../../../shared/stores.ts';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { errorText, localizeServerText } from '../account-shared/messages.ts';

export interface FieldProblem {
  field: string;
  message: string;
}

/** 'Validation Error' with one "field: message" line per problem. */
export function showValidationError(t: TFunction<'account'>, problems: FieldProblem[]): void {
  toast({
    title: t('stores.validationError'),
    description: (
      <ul className="space-y-0.5" data-testid="validation-problems">
        {problems.map((problem) => (
          <li key={`${problem.field}:${problem.message}`}>
            {problem.field}: {localizeServerText(t, problem.message)}
          </li>
        ))}
      </ul>
    ),
    variant: 'destructive',
  });
}

export function zodProblems(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({ field: issue.path.map(String).join('.') || 'name', message: issue.message }));
}

export function showLimitReached(t: TFunction<'account'>): void {
  toast({ title: t('stores.limitReached.title'), description: t('stores.limitReached.description'), variant: 'destructive' });
}

function fieldProblemsOf(error: unknown): FieldProblem[] {
  if (!(error instanceof TRPCClientError)) return [];
  const list = (error.data as { fieldErrors?: FieldProblem[] | null } | undefined)?.fieldErrors;
  return Array.isArray(list) ? list : [];
}

/**
 * A failed store mutation: the limit and validation refusals get their own toasts, anything else
 * the 'Error' toast of the action ("Failed to create store: {message}").
 */
export function showStoreError(t: TFunction<'account'>, action: 'create' | 'update' | 'delete' | 'switch', error: unknown): void {
  if (serverMessage(error) === DASHBOARD_LIMIT_REACHED_MESSAGE) {
    showLimitReached(t);
    return;
  }
  const problems = fieldProblemsOf(error);
  if (problems.length > 0 && (action === 'create' || action === 'update')) {
    showValidationError(t, problems);
    return;
  }
  toast({ title: t('stores.error'), description: t(`stores.failed.${action}`, { message: errorText(t, error) }), variant: 'destructive' });
}
