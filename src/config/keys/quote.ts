/** Values as a person reads them in a widening: JSON, every field, tables' keys sorted so equal values read the same. */
export function quote(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** JSON with every table's keys sorted, so equal values give equal text. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
