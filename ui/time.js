// Times in the reader's own zone and language. Used by the dashboard and by the
// local forge's pull request page, which loads this module as it is: every
// <time datetime="RFC 3339"> of the page gets its text replaced by the local
// time, and keeps the exact value in its title.

const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

// `iso` as a local date and time; the text itself if it does not parse.
export function formatTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : absolute.format(date);
}

// How long ago `iso` was ("5 minutes ago"), from `now` (milliseconds).
export function formatAge(iso, now = Date.now()) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const seconds = Math.round((date.getTime() - now) / 1000);
  const steps = [[60, 'second'], [60, 'minute'], [24, 'hour'], [30, 'day'], [12, 'month']];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return relative.format(value, unit);
    value = Math.round(value / size);
  }
  return relative.format(value, 'year');
}

// A <time> element for `iso`: the local time as its text (or the age, when
// `age` is true), the exact value in its title.
export function timeElement(iso, age = false) {
  const t = document.createElement('time');
  t.setAttribute('datetime', iso);
  t.textContent = age ? formatAge(iso) : formatTime(iso);
  t.title = formatTime(iso);
  return t;
}

// Replaces the text of every <time datetime> under `root`.
export function localizeTimes(root = document) {
  for (const t of root.querySelectorAll('time[datetime]')) {
    const iso = t.getAttribute('datetime');
    if (Number.isNaN(new Date(iso).getTime())) continue;
    t.title = iso;
    t.textContent = formatTime(iso);
  }
}

// A module script runs once the document is parsed: the page's own times.
if (typeof document !== 'undefined') localizeTimes();
