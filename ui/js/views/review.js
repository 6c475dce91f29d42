// The review of a job's branch (GET .../review): the problems the checks find
// on the branch as it stands, the pull request's description, and each changed
// file's diff with its rendered preview beside it.
import { ApiError, get, path } from '../api.js';
import { emptyState, errorBox } from '../common.js';
import { diffView, splitByFile } from '../diff.js';
import { h, replace, setSanitisedHtml } from '../h.js';

function problemsList(review) {
  const problems = Array.isArray(review.problems) ? review.problems : [];
  return h('div', { class: 'problems', 'data-test': 'job-problems' },
    h('h3', null, `Problems on the branch (${problems.length})`),
    problems.length === 0
      ? h('p', { class: 'muted' }, 'The checks find no problems on the branch.')
      : h('ul', { class: 'problem-list' }, problems.map((p) => h('li', null, p))));
}

function fileSection(file, diffText) {
  const change = file.change || 'modified';
  const title = file.from && file.from !== file.path ? `${file.from} → ${file.path}` : file.path;
  const diff = diffText ? diffView(diffText, { 'aria-label': `Diff of ${file.path}` })
    : h('p', { class: 'muted' }, 'No diff lines for this file.');
  const preview = typeof file.previewHtml === 'string'
    ? setSanitisedHtml(h('div', { class: 'preview markdown', 'data-test': 'job-preview', 'aria-label': `Preview of ${file.path}` }), file.previewHtml)
    : null;
  return h('section', { class: 'file-review', 'data-path': file.path },
    h('h3', { class: 'file-title' }, h('span', { class: `change change-${change}` }, change), ' ', h('code', null, title),
      h('span', { class: 'stat' }, h('span', { class: 'plus' }, ` +${file.additions || 0}`), h('span', { class: 'minus' }, ` −${file.deletions || 0}`))),
    h('div', { class: preview ? 'side-by-side' : 'single' },
      h('div', { class: 'pane' }, h('p', { class: 'pane-title' }, 'Diff'), diff),
      preview ? h('div', { class: 'pane' }, h('p', { class: 'pane-title' }, 'Preview'), preview) : null));
}

export function renderReview(container, review) {
  if (!review || !review.headCommit) {
    replace(container, h('div', { 'data-test': 'job-problems', class: 'problems' }),
      emptyState('Nothing to review yet.', h('p', null, 'The changes appear here once the agent has pushed its first commit.')));
    return;
  }
  const chunks = splitByFile(review.diff || '');
  const byPath = new Map(chunks.filter((c) => c.path).map((c) => [c.path, c]));
  const used = new Set();
  const files = (Array.isArray(review.files) ? review.files : []).map((f) => {
    const chunk = byPath.get(f.path) || (f.from ? byPath.get(f.from) : undefined);
    if (chunk) used.add(chunk);
    return fileSection(f, chunk ? chunk.text : '');
  });
  const rest = chunks.filter((c) => !used.has(c) && c.text.trim());
  const notes = Array.isArray(review.notes) ? review.notes : [];
  replace(container,
    h('p', { class: 'muted small' }, `Branch `, h('code', null, review.branch || ''), ` against `, h('code', null, review.base || ''),
      review.headCommit ? ` at ${String(review.headCommit).slice(0, 12)}` : ''),
    problemsList(review),
    notes.length ? h('div', { class: 'notes' }, h('h3', null, 'Notes'), h('ul', null, notes.map((n) => h('li', null, n)))) : null,
    review.pullRequestBodyHtml
      ? h('details', { class: 'pr-body' }, h('summary', null, 'Pull request description'),
        setSanitisedHtml(h('div', { class: 'markdown' }), review.pullRequestBodyHtml))
      : null,
    h('div', { 'data-test': 'job-diff', class: 'files' },
      h('h3', null, `Files changed (${files.length})`),
      files.length ? files : h('p', { class: 'muted' }, 'No files changed against the base.'),
      rest.length ? rest.map((c) => diffView(c.text)) : null),
    review.diffTruncated ? h('p', { class: 'notice' }, 'The diff is too large to show whole; the pull request has all of it.') : null);
}

export async function loadReview(container, projectId, jobId) {
  try {
    const review = await get(path('/v2/agent', projectId, 'job', jobId, 'review'));
    renderReview(container, review);
  } catch (e) {
    // The job itself was just read: a 404 here is a review not kept for it.
    if (e instanceof ApiError && e.status === 404) {
      renderReview(container, null);
    } else {
      replace(container, errorBox(e));
    }
  }
}
