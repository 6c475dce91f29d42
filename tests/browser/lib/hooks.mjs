// The data-test hooks the scenarios click and read, in one place: the dashboard
// (ui/) and the local pull request page (/pulls/{id}, src/api/pull_request_page.cc)
// carry these attributes on the elements named here (docs/testing.md lists them).
// A hook renamed in the pages is renamed here, never worked around with CSS
// classes or text.

export const HOOKS = {
  // #/signin
  signinKey: 'signin-key', // the key input
  signinSubmit: 'signin-submit', // its submit button
  signOut: 'signout', // in the header of every signed-in page

  // An error of any page (refused key, not found, forbidden, failed to load),
  // said in words: on #/signin it is the refusal of a wrong key.
  errorMessage: 'error-message',
  // The empty state of a list (no projects, no jobs, no keys), saying what to do.
  emptyState: 'empty-state',

  // #/projects
  projectRow: 'project-row', // one per project; holds its repository

  // #/projects/{id}
  jobRow: 'job-row', // one per job; holds its first instruction
  workflowsLink: 'workflows-link', // to the project's Workflows page

  // #/projects/{id}/workflows (?workflow=NAME opens that one's runs)
  workflowRow: 'workflow-row', // one per workflow; data-workflow-name, data-source (api or file)
  workflowTitle: 'workflow-title', // in a row: its title
  workflowTrigger: 'workflow-trigger', // in a row: the trigger in words (a schedule's cron and zone as given)
  workflowNextRun: 'workflow-next-run', // in a row: a <time datetime=nextRunAt>, or why there is none
  workflowLastRun: 'workflow-last-run', // in a row: the last run's state, what started it, its job
  workflowProblem: 'workflow-problem', // in a row: its file's error or its name clash, and what to do
  workflowPrompt: 'workflow-prompt', // in a row: the whole prompt (inside a closed <details>)
  workflowToggle: 'workflow-toggle', // in a row: the Enabled checkbox (PATCH {"enabled"})
  workflowRun: 'workflow-run', // in a row: "Run now"
  workflowRunResult: 'workflow-run-result', // in a row: what the run or the switch came to (an error-message inside on refusal)
  workflowRunJobLink: 'workflow-run-job-link', // in the result: the job "Run now" started
  workflowRunsToggle: 'workflow-runs-toggle', // in a row: shows and hides its runs
  workflowRuns: 'workflow-runs', // in a row: its runs, once shown
  workflowRunRow: 'workflow-run-row', // one per run in workflow-runs

  // #/new/{projectId}
  newJobPrompt: 'newjob-prompt', // textarea
  newJobSubmit: 'newjob-submit',

  // #/projects/{pid}/jobs/{jid}
  jobUsage: 'job-usage', // the job's tokens by kind and its estimated cost ("Usage so far: ...")
  jobStatus: 'job-status', // its text is the job's status: active, completed, failed, archived
  jobMessage: 'job-message', // one per instruction, in order: its text
  jobStep: 'job-step', // one per step of the agent, in order
  jobPreview: 'job-preview', // one per changed page with a preview (previewHtml inside)
  jobDiff: 'job-diff', // the diff of the branch against its base, file by file
  jobProblems: 'job-problems', // the problems the checks report on the branch
  jobPrLink: 'job-pr-link', // the link to the pull request
  jobTrigger: 'job-trigger', // what started a workflow's job ("Started by workflow NAME: by hand"); absent otherwise
  jobTriggerWorkflow: 'job-trigger-workflow', // in it: the link to the Workflows page
  followupInput: 'followup-input', // textarea
  followupSubmit: 'followup-submit',
  archiveButton: 'archive-button', // asks with window.confirm() first

  // #/keys
  keyName: 'key-name', // input
  keyCreate: 'key-create', // the form's submit button
  keySecret: 'key-secret', // a read-only input holding the new key's secret, shown once
  keyRow: 'key-row', // one per key; holds its name; "revoked" once revoked
  keyRevoke: 'key-revoke', // inside a key-row; asks with window.confirm() first

  // /pulls/{id} (the local forge's page)
  prTitle: 'pr-title',
  prState: 'pr-state', // Open, Draft, Merged or Closed
  prDescription: 'pr-description', // the description, rendered
  mergeButton: 'merge-button', // only for a signed-in key of the pull request's organisation
  mergeStatus: 'merge-status', // what the merge button's request came to
};

// The CSS selector of a hook.
export function sel(hook) {
  return `[data-test="${hook}"]`;
}

// The selector of the row of the workflow `name` (a valid workflow name) of
// `source` (api or file), and, with `hook`, of that hook inside it.
export function workflowSel(name, source = 'api', hook = null) {
  const row = `${sel(HOOKS.workflowRow)}[data-workflow-name="${name}"][data-source="${source}"]`;
  return hook ? `${row} ${sel(hook)}` : row;
}
