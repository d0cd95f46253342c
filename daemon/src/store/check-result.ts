// The port for `roundtable doctor`'s findings: the store's own checks (store/postgres/doctor-check.ts) return one,
// doctor/ gathers them.

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
  readonly fix?: string;
}
