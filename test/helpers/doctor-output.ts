// Reading `roundtable doctor`'s report in tests: one line per check (`ok|warn|fail NAME DETAIL`), its fix indented below.

/** The line of one check, with its fix line if any: { status, detail, fix }. */
export function doctorLine(output: string, name: string): { status: string; detail: string; fix: string } {
  const lines = output.split('\n');
  const i = lines.findIndex((l) => new RegExp(`^(ok|warn|fail)\\s+${name}\\s`).test(l));
  if (i === -1) throw new Error(`no "${name}" line in:\n${output}`);
  const match = new RegExp(`^(ok|warn|fail)\\s+${name}\\s+(.*)$`).exec(lines[i]!)!;
  const next = lines[i + 1] ?? '';
  const fix = /^\s+fix: /.test(next) ? next.replace(/^\s+fix: /, '') : '';
  return { status: match[1]!, detail: match[2]!, fix };
}
