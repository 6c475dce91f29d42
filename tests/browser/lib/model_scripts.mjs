// The scripted model's replies (tests/fakes/fake_model_main.cc's script format).
// Step k answers a request holding k assistant messages; the last step answers
// every later one.

// The main job. Its first turn adds a troubleshooting page whose link is broken
// (/guides/limits does not exist) and finishes; the checks send the broken link
// back twice (the repair rounds), the script finishes again each time, and the
// problem stays on the branch. Its follow-up fixes the quickstart's heading.
//
// A follow-up's first request already holds one assistant message (the first
// turn's outcome), so it is answered by step 1, which the first turn also
// reaches. Step 1's edit names "quickstart{{last_tool_result}}.mdx": in the
// first turn the last tool result is step 0's ("edited docs.json..."), which
// makes a path that does not exist, and the edit fails harmlessly; in the
// follow-up there is no tool result yet, the path is quickstart.mdx and the
// edit is made. The delays leave the dashboard time to show each turn active.
export const FIRST_PROMPT = 'Add a troubleshooting page to the Guides';
export const FOLLOW_UP_PROMPT = 'Also fix the typo in the quickstart heading';
export const NEW_PAGE = 'guides/troubleshooting.mdx';
export const BROKEN_LINK = '/guides/limits';
export const FIRST_STEP_TEXT = 'I will add a troubleshooting page to the Guides group.';

export const MAIN_SCRIPT = [
  {
    delay_ms: 2500,
    text: FIRST_STEP_TEXT,
    tool_calls: [
      {
        name: 'write_file',
        arguments: {
          path: NEW_PAGE,
          content:
            '---\ntitle: "Troubleshooting"\ndescription: "What to do when a deploy fails."\n---\n\n' +
            '## The deploy fails\n\n' +
            `Check the [limits of your plan](${BROKEN_LINK}) first, then **retry** the deploy.\n`,
        },
      },
      {
        name: 'edit_file',
        arguments: {
          path: 'docs.json',
          old_text: '"guides/configuration"]',
          new_text: '"guides/configuration", "guides/troubleshooting"]',
        },
      },
    ],
  },
  {
    delay_ms: 1500,
    tool_calls: [
      {
        name: 'edit_file',
        arguments: {
          path: 'quickstart{{last_tool_result}}.mdx',
          old_text: '## Instal the CLI',
          new_text: '## Install the CLI',
        },
      },
    ],
  },
  {
    tool_calls: [
      {
        name: 'finish',
        arguments: { summary: 'Carried out the instruction; the changed files are listed in the pull request.' },
      },
    ],
  },
];

// Hostile text in every place a model or a user controls: the prompt, a file
// name, a page's content, the assistant's text and the summary and title.
export const XSS_IMG = '<img src=x onerror=window.__xss=1>';
export const XSS_SCRIPT = '<script>window.__xss=1</script>';
export const XSS_FILE = `${XSS_IMG}.mdx`;
export const XSS_PROMPT = `Write a page about ${XSS_IMG} and ${XSS_SCRIPT}`;
export const XSS_SUMMARY = `Wrote ${XSS_IMG} and ${XSS_SCRIPT}`;

export const XSS_SCRIPT_STEPS = [
  {
    delay_ms: 500,
    text: `Writing ${XSS_IMG} ${XSS_SCRIPT}`,
    tool_calls: [
      {
        name: 'write_file',
        arguments: {
          path: XSS_FILE,
          content:
            `---\ntitle: "${XSS_IMG}"\n---\n\n` +
            `Text ${XSS_IMG} and ${XSS_SCRIPT} here.\n\n` +
            '[a link](javascript:window.__xss=1) and <a href="javascript:window.__xss=1">another</a>\n\n' +
            '<iframe src="javascript:window.__xss=1"></iframe>\n',
        },
      },
    ],
  },
  {
    tool_calls: [{ name: 'finish', arguments: { title: `${XSS_SCRIPT} title`, summary: XSS_SUMMARY } }],
  },
];

// The workflows' service (scenarios/workflows.mjs): each job a workflow starts
// fixes the quickstart's heading and finishes. The first step waits, so that a
// second "Run now" arrives while the first run's job is active (and is queued).
// A job whose edit finds the heading already fixed (a later run) finishes too.
export const WORKFLOW_STEP_TEXT = 'Fixing the quickstart heading for the workflow.';
export const WORKFLOW_SCRIPT = [
  {
    delay_ms: 2500,
    text: WORKFLOW_STEP_TEXT,
    tool_calls: [
      {
        name: 'edit_file',
        arguments: { path: 'quickstart.mdx', old_text: '## Instal the CLI', new_text: '## Install the CLI' },
      },
    ],
  },
  {
    tool_calls: [{ name: 'finish', arguments: { summary: 'Fixed the quickstart heading.' } }],
  },
];
