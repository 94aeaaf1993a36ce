const absolute = /* @__PURE__ */ new Intl.DateTimeFormat('en-US', {
  dateStyle: 'medium',
  timeStyle: 'long',
  timeZone: 'UTC',
});
const relative = /* @__PURE__ */ new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** How the kit writes times; `DataSourceList` and `SchemaBrowser` both carry them. */
export const timeMessages = {
  /** "5 minutes ago", "yesterday"; "just now" under a minute. */
  relativeTime: (iso: string, now: number) => {
    const ms = Date.parse(iso) - now;
    for (const [unit, size] of UNITS) {
      if (Math.abs(ms) >= size) return relative.format(Math.round(ms / size), unit);
    }
    return 'just now';
  },
  absoluteTime: (iso: string) => absolute.format(new Date(iso)),
};
