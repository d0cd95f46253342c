// The Activity and Audit views' filter forms as a query string: empty fields left out, local times sent as UTC.
export function filterQuery(form: HTMLFormElement): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    if (typeof value !== 'string' || value === '') continue;
    const time = (form.elements.namedItem(name) as HTMLInputElement | null)?.type === 'datetime-local';
    query.set(name, time ? new Date(value).toISOString() : value.trim());
  }
  return query;
}
