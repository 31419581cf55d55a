import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';

export type AppErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'TOO_MANY_REQUESTS'
  | 'BAD_GATEWAY'
  | 'GATEWAY_TIMEOUT'
  | 'INTERNAL_SERVER_ERROR';

export interface FieldError {
  field: string;
  message: string;
}

/** A rule the caller broke, with the text the user sees. Both transports turn it into a status + `{message}`. */
export class AppError extends TRPCError {
  readonly fieldErrors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: AppErrorCode,
    message: string,
    extras: { fieldErrors?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super({ code, message });
    this.fieldErrors = extras.fieldErrors;
    this.retryAfterSeconds = extras.retryAfterSeconds;
  }
}

interface IssueLike {
  path?: readonly PropertyKey[] | readonly { key: PropertyKey }[];
  message: string;
}

function issuesOf(cause: unknown): IssueLike[] | null {
  if (cause && typeof cause === 'object' && 'issues' in cause && Array.isArray(cause.issues)) {
    return cause.issues as IssueLike[];
  }
  return null;
}

function fieldName(path: IssueLike['path']): string {
  return (path ?? []).map((segment) => (typeof segment === 'object' ? String(segment.key) : String(segment))).join('.');
}

export interface DescribedError {
  status: number;
  code: TRPCError['code'];
  message: string;
  fieldErrors: FieldError[] | undefined;
  retryAfterSeconds: number | undefined;
}

export const INTERNAL_ERROR_MESSAGE = 'Something went wrong on our side. Please try again.';

/** One reading of any error a procedure threw: the status, the user-facing message and the field errors. */
export function describeError(error: TRPCError): DescribedError {
  const status = getHTTPStatusCodeFromError(error);
  const issues = issuesOf(error.cause);
  if (issues && issues.length > 0) {
    const fieldErrors = issues.map((issue) => ({ field: fieldName(issue.path), message: issue.message }));
    return { status, code: error.code, message: fieldErrors[0]!.message, fieldErrors, retryAfterSeconds: undefined };
  }
  if (error.code === 'INTERNAL_SERVER_ERROR') {
    return { status, code: error.code, message: INTERNAL_ERROR_MESSAGE, fieldErrors: undefined, retryAfterSeconds: undefined };
  }
  const app = error instanceof AppError ? error : null;
  return {
    status,
    code: error.code,
    message: error.message,
    fieldErrors: app?.fieldErrors,
    retryAfterSeconds: app?.retryAfterSeconds,
  };
}
