// A job: what started it (a workflow's run), its instructions in order with
// the agent's steps (live from the job's event stream while a turn runs, by
// polling if the stream fails), token usage, the review of its branch, the
// pull request, a follow-up box and archiving.
import { ApiError, get, path, post } from '../api.js';
import { errorBox, firstLine, heading, loading, statusBadge } from '../common.js';
import { h, replace } from '../h.js';
import { timeElement } from '../../time.js';
import { describeRunTrigger } from '../triggers.js';
import { repositoryName } from './projects.js';
import { loadReview } from './review.js';
import { stepItem, usageText } from './steps.js';
import { workflowsHref } from './workflows.js';

const POLL_MS = 3000;
const MAX_TRANSCRIPT_PAGES = 20;
// Events after which the job, its transcript and its review are read again.
const REFRESH_EVENTS = ['job.message_added', 'turn.started', 'turn.ended', 'pull_request.opened',
  'pull_request.updated', 'job.completed', 'job.failed', 'job.archived'];

// "Started by workflow NAME: merge into sdk main (abc1234..def5678)" for a
// job a workflow started (its `trigger`, docs/api.md "The job's trigger");
// null for any other job.
function startedBy(projectId, job) {
  const t = job.trigger;
  if (!t || typeof t !== 'object' || typeof t.kind !== 'string') return null;
  const where = t.kind === 'comment' && t.url
    ? [' (', h('a', { href: t.url, rel: 'noopener noreferrer', target: '_blank' }, 'the comment'), ')']
    : null;
  if (!t.workflow) return h('p', { class: 'started-by', 'data-test': 'job-trigger' }, `Started by ${describeRunTrigger(t)}`, where);
  return h('p', { class: 'started-by', 'data-test': 'job-trigger' }, 'Started by workflow ',
    h('a', { href: workflowsHref(projectId, t.workflow), 'data-test': 'job-trigger-workflow' }, t.workflow),
    `: ${describeRunTrigger(t)}`, where);
}

async function loadTranscript(base) {
  const messages = [];
  let usage = null;
  let cursor = null;
  for (let page = 0; page < MAX_TRANSCRIPT_PAGES; page++) {
    const t = await get(`${base}/messages${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
    usage = t.usage || usage;
    messages.push(...(t.messages || []));
    cursor = t.nextCursor;
    if (!cursor) break;
  }
  return { messages, usage };
}

export async function renderJob(main, [projectId, jobId], ctx) {
  const base = path('/v2/agent', projectId, 'job', jobId);
  const title = heading('Job');
  const summary = h('div', { class: 'job-summary' }, loading('the job'));
  const instructions = h('ol', { class: 'turns' });
  const usageLine = h('p', { class: 'muted small', 'data-test': 'job-usage' });
  const reviewBox = h('div', null, loading('the review'));
  const actionErrors = h('div', { 'aria-live': 'polite' });
  const live = h('p', { class: 'muted small', role: 'status', 'aria-live': 'polite' });
  const followupInput = h('textarea', { id: 'followup-input', rows: '4', maxlength: '65536', 'data-test': 'followup-input', required: true });
  const followupSubmit = h('button', { type: 'submit', class: 'primary', 'data-test': 'followup-submit' }, 'Send follow-up');
  const followup = h('form', { class: 'card' },
    h('label', { for: 'followup-input' }, 'Follow-up instruction'),
    h('p', { class: 'hint' }, 'The agent works on the same branch; a follow-up to a running job waits for its turn.'),
    followupInput, followupSubmit);
  const archiveButton = h('button', { type: 'button', class: 'danger', 'data-test': 'archive-button' }, 'Archive job');
  const back = h('a', { href: `#/projects/${encodeURIComponent(projectId)}` }, '← Jobs of the project');

  const turnsSection = h('section', { 'aria-labelledby': 'turns-title' },
    h('h2', { id: 'turns-title' }, 'Instructions and steps'), usageLine, instructions, live);
  const reviewSection = h('section', { 'aria-labelledby': 'review-title' }, h('h2', { id: 'review-title' }, 'Changes'), reviewBox);
  const actions = h('p', { class: 'actions' }, archiveButton);
  main.append(h('p', { class: 'crumbs' }, back), title, summary, actionErrors, turnsSection, followup, reviewSection, actions);

  let job = null;
  let transcript = { messages: [], usage: null };
  // Steps of running turns from the stream, by message seq: {attempt, keys, list}.
  const liveSteps = new Map();

  function renderSummary() {
    title.textContent = firstLine(transcript.messages[0] ? transcript.messages[0].prompt : '', 90) || 'Job';
    document.title = `${title.textContent} · docwright`;
    replace(summary,
      h('p', { class: 'meta' }, statusBadge(job.status, 'job-status'), ' ',
        h('span', null, repositoryName(job.source && job.source.repository)), ' · branch ',
        h('code', null, job.source ? job.source.ref : ''), ' · model ', job.model || 'default',
        ' · started ', timeElement(job.createdAt), ' · updated ', timeElement(job.updatedAt)),
      startedBy(projectId, job),
      job.prLink
        ? h('p', null, h('a', { href: job.prLink, class: 'button', 'data-test': 'job-pr-link', rel: 'noopener noreferrer', target: '_blank' }, 'Open the pull request'))
        : h('p', { class: 'muted' }, job.status === 'active' ? 'The pull request link appears when the turn ends.' : 'No pull request.'),
      job.error ? h('div', { class: 'error', role: 'alert' }, h('p', null, `The job failed: ${job.error}`)) : null,
      job.summary ? h('div', { class: 'card' }, h('p', { class: 'pane-title' }, 'Summary'), h('p', { class: 'pre' }, job.summary)) : null);
    const archived = job.status === 'archived';
    archiveButton.hidden = archived;
    followupInput.disabled = archived;
    followupSubmit.disabled = archived;
    if (archived) followupInput.placeholder = 'An archived job takes no follow-ups.';
  }

  function liveList(seq) {
    if (!liveSteps.has(seq)) liveSteps.set(seq, { attempt: 0, keys: new Set(), list: h('ol', { class: 'steps live' }) });
    return liveSteps.get(seq);
  }

  function renderTurns() {
    const text = usageText((job && job.usage) || transcript.usage);
    usageLine.textContent = text ? `Usage so far: ${text}` : '';
    replace(instructions, transcript.messages.map((m) => {
      const turn = m.turn || {};
      const recorded = Array.isArray(turn.steps) ? turn.steps : [];
      const steps = recorded.length > 0 || !liveSteps.has(m.seq)
        ? h('ol', { class: 'steps' }, recorded.map(stepItem))
        : liveSteps.get(m.seq).list;
      const turnUsage = usageText(turn.usage);
      return h('li', { class: 'turn', 'data-seq': m.seq },
        h('div', { class: 'turn-head' }, statusBadge(turn.state || 'queued'), ' ', timeElement(m.createdAt)),
        h('p', { class: 'instruction pre', 'data-test': 'job-message' }, m.prompt),
        recorded.length === 0 && turn.state === 'queued' ? h('p', { class: 'muted small' }, 'Waiting for a worker…') : null,
        steps,
        turn.stepsOmitted ? h('p', { class: 'muted small' }, `${turn.stepsOmitted} more steps are too large to show here.`) : null,
        turn.summary ? h('p', { class: 'turn-summary pre' }, turn.summary) : null,
        turn.error ? h('p', { class: 'error' }, turn.error) : null,
        turnUsage ? h('p', { class: 'muted small' }, turnUsage) : null);
    }));
  }

  async function refresh(withReview = true) {
    const [j, t] = await Promise.all([get(base), loadTranscript(base)]);
    if (!ctx.alive()) return;
    job = j;
    transcript = t;
    renderSummary();
    renderTurns();
    if (job.status !== 'active' && (stream || pollTimer)) {
      stopLive();
      live.textContent = '';
    }
    if (withReview) await loadReview(reviewBox, projectId, jobId);
  }

  // --- Live updates ------------------------------------------------------------
  let stream = null;
  let pollTimer = null;
  let refreshTimer = null;
  // The id (sequence) of the last event the page received: a stream opened
  // again (after a follow-up) starts after it instead of at the first event.
  let lastEventId = null;

  function seen(event) {
    if (/^\d+$/.test(event.lastEventId || '')) lastEventId = event.lastEventId;
  }

  function scheduleRefresh() {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => refresh().catch((e) => { live.textContent = `Could not refresh: ${e.message}`; }), 250);
  }

  function onStep(event) {
    seen(event);
    let data;
    try {
      data = JSON.parse(event.data).data;
    } catch (e) {
      return;
    }
    if (!data || !Number.isInteger(data.seq)) return;
    const message = transcript.messages.find((m) => m.seq === data.seq);
    if (message && Array.isArray(message.turn && message.turn.steps) && message.turn.steps.length > 0) return;
    const entry = liveList(data.seq);
    if (data.attempt > entry.attempt) {
      // A turn re-run after a crash starts its steps again.
      entry.attempt = data.attempt;
      entry.keys.clear();
      entry.list.replaceChildren();
    } else if (data.attempt < entry.attempt) {
      return;
    }
    const key = String(data.index);
    if (entry.keys.has(key)) return;
    entry.keys.add(key);
    entry.list.append(stepItem(data.step));
    if (!message) scheduleRefresh();
    else if (!instructions.contains(entry.list)) renderTurns();
  }

  function stopLive() {
    if (stream) stream.close();
    stream = null;
    clearInterval(pollTimer);
    pollTimer = null;
  }

  function startPolling() {
    if (pollTimer) return;
    live.textContent = 'Following the job by polling.';
    let busy = false;
    pollTimer = setInterval(async () => {
      if (busy || document.visibilityState !== 'visible' || !ctx.alive()) return;
      busy = true;
      try {
        const j = await get(base);
        if (j.updatedAt !== job.updatedAt || j.status !== job.status) await refresh();
        if (job.status !== 'active') {
          stopLive();
          live.textContent = '';
        }
      } catch (e) {
        live.textContent = `Live updates paused: ${e.message}`;
      } finally {
        busy = false;
      }
    }, POLL_MS);
  }

  function startLive() {
    if (stream || pollTimer || job.status !== 'active') return;
    if (typeof EventSource === 'undefined') {
      startPolling();
      return;
    }
    live.textContent = 'Following the job live.';
    stream = new EventSource(`${base}/events${lastEventId ? `?after=${lastEventId}` : ''}`);
    stream.addEventListener('turn.step', onStep);
    for (const type of REFRESH_EVENTS) {
      stream.addEventListener(type, (event) => {
        seen(event);
        // job.completed, job.failed and job.archived may be an earlier
        // turn's (a stream opened without ?after= starts at the job's first
        // event): the refresh stops following once the job read is not active.
        scheduleRefresh();
      });
    }
    stream.addEventListener('error', () => {
      // The stream failed (or the server ended it): polling takes over.
      if (stream) stream.close();
      stream = null;
      if (ctx.alive()) startPolling();
    });
  }
  ctx.onLeave(() => {
    stopLive();
    clearTimeout(refreshTimer);
  });

  // --- Actions -----------------------------------------------------------------
  followup.addEventListener('submit', async (event) => {
    event.preventDefault();
    actionErrors.replaceChildren();
    const prompt = followupInput.value.trim();
    if (!prompt) {
      actionErrors.append(h('p', { class: 'error', role: 'alert', 'data-test': 'error-message' }, 'Write the follow-up instruction first.'));
      followupInput.focus();
      return;
    }
    followupSubmit.disabled = true;
    try {
      job = await post(`${base}/message`, { prompt });
      followupInput.value = '';
      // With the review: the turn may have ended before the stream is open.
      await refresh();
      startLive();
    } catch (e) {
      actionErrors.append(errorBox(e));
    } finally {
      followupSubmit.disabled = job && job.status === 'archived';
    }
  });

  archiveButton.addEventListener('click', async () => {
    const ok = window.confirm('Archive this job? Its running work stops and it takes no more follow-ups. This cannot be undone.');
    if (!ok) return;
    actionErrors.replaceChildren();
    archiveButton.disabled = true;
    try {
      await post(`${base}/archive`);
      stopLive();
      await refresh();
      title.focus();
    } catch (e) {
      actionErrors.append(errorBox(e));
    } finally {
      archiveButton.disabled = false;
    }
  });

  try {
    await refresh();
  } catch (e) {
    replace(summary, errorBox(e, { href: `#/projects/${encodeURIComponent(projectId)}`, text: 'Back to the jobs of the project' }));
    for (const el of [turnsSection, followup, reviewSection, actions]) el.remove();
    if (e instanceof ApiError && e.status === 404) title.textContent = 'Job not found';
    return;
  }
  startLive();
}
