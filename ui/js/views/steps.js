// A turn's steps as the transcript and the event stream give them: what the
// model said, the tools it ran (arguments and result folded away), what the
// agent added to its context, and the publishing steps.
import { h } from '../h.js';

function short(text, max = 160) {
  const s = String(text || '');
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export function stepItem(step) {
  const s = step || {};
  switch (s.type) {
    case 'assistant':
      return h('li', { class: 'step step-assistant', 'data-test': 'job-step' },
        h('span', { class: 'step-kind' }, 'Agent'), h('div', { class: 'step-text' }, s.text));
    case 'context':
      return h('li', { class: 'step step-context', 'data-test': 'job-step' },
        h('span', { class: 'step-kind' }, 'Context'), h('div', { class: 'step-text' }, s.text));
    case 'publish':
      return h('li', { class: 'step step-publish', 'data-test': 'job-step' },
        h('span', { class: 'step-kind' }, s.action || 'publish'), h('div', { class: 'step-text' }, s.text));
    case 'tool':
      return h('li', { class: `step step-tool${s.isError ? ' step-error' : ''}`, 'data-test': 'job-step' },
        h('details', null,
          h('summary', null, h('span', { class: 'step-kind' }, s.isError ? `${s.tool} failed` : s.tool),
            h('code', { class: 'step-args' }, short(s.arguments))),
          h('div', { class: 'step-detail' },
            h('p', { class: 'muted small' }, 'Arguments'), h('pre', null, s.arguments),
            h('p', { class: 'muted small' }, 'Result'), h('pre', null, s.result))));
    default:
      return h('li', { class: 'step', 'data-test': 'job-step' }, h('span', { class: 'step-kind' }, s.type || 'step'),
        h('div', { class: 'step-text' }, s.text || ''));
  }
}

// Token counts (and a cost, when the API gives one) as a short text; null if
// there is nothing to say.
export function usageText(usage) {
  if (!usage || typeof usage !== 'object') return null;
  const parts = [];
  const n = (v) => Number(v).toLocaleString();
  if (Number.isFinite(usage.inputTokens)) parts.push(`${n(usage.inputTokens)} input tokens`);
  if (Number.isFinite(usage.cachedInputTokens) && usage.cachedInputTokens > 0) parts.push(`${n(usage.cachedInputTokens)} cached`);
  if (Number.isFinite(usage.cacheWriteTokens) && usage.cacheWriteTokens > 0) parts.push(`${n(usage.cacheWriteTokens)} written to the cache`);
  if (Number.isFinite(usage.outputTokens)) parts.push(`${n(usage.outputTokens)} output tokens`);
  // The job's estimated cost, in the server's price table's currency (null
  // without one, or when no turn's model is priced).
  if (Number.isFinite(usage.estimatedCost) && typeof usage.currency === 'string') {
    parts.push(`estimated cost ${usage.estimatedCost.toFixed(usage.estimatedCost < 1 ? 4 : 2)} ${usage.currency}`);
  }
  if (usage.inputTokens === 0 && usage.outputTokens === 0) return null;
  return parts.length ? parts.join(' · ') : null;
}
