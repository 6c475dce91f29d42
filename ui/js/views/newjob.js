// Starting a job: an instruction for the agent and, optionally, a model.
import { ApiError, path, post } from '../api.js';
import { errorBox, heading } from '../common.js';
import { h } from '../h.js';
import { loadProjects, repositoryName } from './projects.js';
import { jobHref } from './jobs.js';

export async function renderNewJob(main, [projectId], ctx) {
  const title = heading('New job');
  const prompt = h('textarea', { id: 'newjob-prompt', rows: '8', maxlength: '65536', required: true, 'aria-describedby': 'newjob-help', 'data-test': 'newjob-prompt' });
  const model = h('input', { id: 'newjob-model', type: 'text', maxlength: '200', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'newjob-model-help' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-test': 'newjob-submit' }, 'Start the job');
  const errors = h('div', { 'aria-live': 'polite' });
  // One key per form shown: a double submit or a retry after a lost answer
  // starts one job, not two.
  const newKey = () => (window.crypto && window.crypto.randomUUID ? window.crypto.randomUUID() : null);
  let idempotencyKey = newKey();
  const form = h('form', { class: 'card' },
    h('label', { for: 'newjob-prompt' }, 'Instruction'),
    h('p', { id: 'newjob-help', class: 'hint' }, 'What the agent should change in the documentation, as you would ask a writer: “Add a page about rate limits and link it from the API overview.”'),
    prompt,
    h('label', { for: 'newjob-model' }, 'Model (optional)'),
    h('p', { id: 'newjob-model-help', class: 'hint' }, 'Leave empty for the project’s default model.'),
    model,
    submit,
    errors);
  main.append(h('p', { class: 'crumbs' }, h('a', { href: `#/projects/${encodeURIComponent(projectId)}` }, '← Jobs of the project')), title, form);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errors.replaceChildren();
    const text = prompt.value.trim();
    if (!text) {
      errors.append(h('p', { class: 'error', role: 'alert', 'data-test': 'error-message' }, 'Write an instruction for the agent first.'));
      prompt.focus();
      return;
    }
    const body = { prompt: text };
    if (model.value.trim()) body.model = model.value.trim();
    submit.disabled = true;
    try {
      const job = await post(path('/v2/agent', projectId, 'job'), body, idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {});
      ctx.navigate(jobHref(projectId, job.id));
    } catch (e) {
      errors.append(errorBox(e));
      // Refused as sent: the corrected form is another request. Unreached:
      // the same request again, under the same key.
      if (e instanceof ApiError && e.status !== 0) idempotencyKey = newKey();
      submit.disabled = false;
    }
  });

  try {
    const project = (await loadProjects()).find((p) => p.id === projectId);
    if (!project) throw new ApiError(404, 'project not found', 'not_found');
    title.textContent = `New job in ${repositoryName(project.repository)}`;
    document.title = `${title.textContent} · docwright`;
  } catch (e) {
    form.replaceWith(errorBox(e));
  }
}
