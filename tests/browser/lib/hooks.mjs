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

  // #/new/{projectId}
  newJobPrompt: 'newjob-prompt', // textarea
  newJobSubmit: 'newjob-submit',

  // #/projects/{pid}/jobs/{jid}
  jobStatus: 'job-status', // its text is the job's status: active, completed, failed, archived
  jobMessage: 'job-message', // one per instruction, in order: its text
  jobStep: 'job-step', // one per step of the agent, in order
  jobPreview: 'job-preview', // one per changed page with a preview (previewHtml inside)
  jobDiff: 'job-diff', // the diff of the branch against its base, file by file
  jobProblems: 'job-problems', // the problems the checks report on the branch
  jobPrLink: 'job-pr-link', // the link to the pull request
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
