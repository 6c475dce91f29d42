// The data-test hooks the scenarios click and read, in one place: the dashboard
// (ui/) and the local pull request page (/pulls/{id}) carry these attributes on
// the elements named here (docs/testing.md lists them). A hook renamed in the UI
// is renamed here, never worked around with CSS classes or text.

export const HOOKS = {
  // #/signin
  signinKey: 'signin-key', // the key input
  signinSubmit: 'signin-submit', // its submit button
  signinError: 'signin-error', // shown when the key is refused
  signOut: 'sign-out', // in the header of every signed-in page

  // An error or empty state of any page (not found, forbidden, failed to load).
  pageError: 'page-error',
  // The confirming button of an in-page confirmation (a revoke, an archive, a
  // merge), if the UI asks in the page rather than with window.confirm().
  confirm: 'confirm',

  // #/projects
  projectRow: 'project-row', // one per project; holds its repository

  // #/projects/{id}
  jobRow: 'job-row', // one per job; holds its first instruction

  // #/new/{projectId}
  newJobPrompt: 'new-job-prompt', // textarea
  newJobSubmit: 'new-job-submit',

  // #/projects/{pid}/jobs/{jid}
  jobStatus: 'job-status', // its text is the job's status: active, completed, failed, archived
  jobMessage: 'job-message', // one per instruction, in order
  jobSteps: 'job-steps', // the agent's steps
  jobPreview: 'job-preview', // the previews of the changed pages (previewHtml inside)
  jobDiff: 'job-diff', // the diff of the branch against its base
  jobProblems: 'job-problems', // the problems the checks report on the branch
  followupPrompt: 'followup-prompt', // textarea
  followupSubmit: 'followup-submit',
  archiveButton: 'archive-button',

  // #/keys
  keyCreateName: 'key-create-name', // input
  keyCreateSubmit: 'key-create-submit',
  keySecret: 'key-secret', // the new key's secret, shown once
  keyRow: 'key-row', // one per key; holds its name; "revoked" once revoked
  keyRevoke: 'key-revoke', // inside a key-row

  // /pulls/{id} (the local forge's page)
  prDescription: 'pr-description', // the description, rendered
  mergeButton: 'merge-button', // only for a signed-in key of the pull request's organisation
  mergeState: 'merge-state', // the pull request's state: open, merged, closed
};

// The CSS selector of a hook.
export function sel(hook) {
  return `[data-test="${hook}"]`;
}
