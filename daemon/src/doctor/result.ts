// What one doctor check returns and the words its line uses: the worst finding, every detail and fix in order,
// sizes, durations and who may read a file.
import type { CheckResult, CheckStatus } from '../store/check-result.js';

const SEVERITY: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 };

/** A problem found by a check; a check reports its worst one and lists them all. */
export interface Finding {
  readonly status: CheckStatus;
  readonly detail: string;
  readonly fix?: string;
}

export function result(name: string, status: CheckStatus, detail: string, fix?: string): CheckResult {
  return fix === undefined ? { name, status, detail } : { name, status, detail, fix };
}

/** One line for a check: what is fine first, then each problem; the fixes joined in the same order. */
export function summarise(name: string, base: string, findings: readonly Finding[]): CheckResult {
  const status = findings.reduce<CheckStatus>((worst, f) => (SEVERITY[f.status] > SEVERITY[worst] ? f.status : worst), 'ok');
  const detail = [base, ...findings.map((f) => f.detail)].filter(Boolean).join('; ');
  const fixes = findings.map((f) => f.fix).filter((f): f is string => Boolean(f));
  return result(name, status, detail, fixes.length ? fixes.join('; ') : undefined);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${(s / 3600).toFixed(1).replace(/\.0$/, '')} h`;
  const days = s / 86400;
  return days >= 10 ? `${Math.round(days)} d` : `${days.toFixed(1).replace(/\.0$/, '')} d`;
}

export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? String(error);
}

/** "group or others can read" for a mode, or undefined when only the owner can. */
export function openTo(mode: number): string | undefined {
  const who = [mode & 0o060 ? 'group' : '', mode & 0o006 ? 'others' : ''].filter(Boolean);
  if (!who.length) return undefined;
  const can = [mode & 0o044 ? 'read' : '', mode & 0o022 ? 'write' : ''].filter(Boolean).join(' and ');
  return `${who.join(' and ')} can ${can} it`;
}
