// @ts-check

/** @type {import('@docusaurus/plugin-content-docs').SidebarsConfig} */
const sidebars = {
  "docs": [
    {
      "type": "category",
      "label": "Getting started",
      "link": {
        "type": "doc",
        "id": "getting-started/index"
      },
      "items": [
        "getting-started/install",
        "getting-started/install-in-depth",
        "getting-started/install-checklist",
        "getting-started/configure",
        "getting-started/configure-in-depth",
        "getting-started/configure-checklist",
        "getting-started/deploy",
        "getting-started/deploy-in-depth",
        "getting-started/deploy-checklist",
        "getting-started/monitor",
        "getting-started/monitor-in-depth",
        "getting-started/monitor-checklist",
        "getting-started/scale",
        "getting-started/scale-in-depth",
        "getting-started/scale-checklist",
        "getting-started/secure",
        "getting-started/secure-in-depth",
        "getting-started/secure-checklist",
        "getting-started/backup",
        "getting-started/backup-in-depth",
        "getting-started/backup-checklist",
        "getting-started/migrate",
        "getting-started/migrate-in-depth",
        "getting-started/migrate-checklist",
        "getting-started/debug",
        "getting-started/debug-in-depth",
        "getting-started/debug-checklist",
        "getting-started/integrate",
        "getting-started/integrate-in-depth",
        "getting-started/integrate-checklist"
      ]
    },
    {
      "type": "category",
      "label": "Guides",
      "link": {
        "type": "doc",
        "id": "guides/index"
      },
      "items": [
        "guides/install",
        "guides/install-in-depth",
        "guides/install-checklist",
        "guides/configure",
        "guides/configure-in-depth",
        "guides/configure-checklist",
        "guides/deploy",
        "guides/deploy-in-depth",
        "guides/deploy-checklist",
        "guides/monitor",
        "guides/monitor-in-depth",
        "guides/monitor-checklist",
        "guides/scale",
        "guides/scale-in-depth",
        "guides/scale-checklist",
        "guides/secure",
        "guides/secure-in-depth",
        "guides/secure-checklist",
        "guides/backup",
        "guides/backup-in-depth",
        "guides/backup-checklist",
        "guides/migrate",
        "guides/migrate-in-depth",
        "guides/migrate-checklist",
        "guides/debug",
        "guides/debug-in-depth",
        "guides/debug-checklist",
        "guides/integrate",
        "guides/integrate-in-depth",
        "guides/integrate-checklist"
      ]
    },
    {
      "type": "category",
      "label": "Concepts",
      "link": {
        "type": "doc",
        "id": "concepts/index"
      },
      "items": [
        "concepts/install",
        "concepts/install-in-depth",
        "concepts/install-checklist",
        "concepts/configure",
        "concepts/configure-in-depth",
        "concepts/configure-checklist",
        "concepts/deploy",
        "concepts/deploy-in-depth",
        "concepts/deploy-checklist",
        "concepts/monitor",
        "concepts/monitor-in-depth",
        "concepts/monitor-checklist",
        "concepts/scale",
        "concepts/scale-in-depth",
        "concepts/scale-checklist",
        "concepts/secure",
        "concepts/secure-in-depth",
        "concepts/secure-checklist",
        "concepts/backup",
        "concepts/backup-in-depth",
        "concepts/backup-checklist",
        "concepts/migrate",
        "concepts/migrate-in-depth",
        "concepts/migrate-checklist",
        "concepts/debug",
        "concepts/debug-in-depth",
        "concepts/debug-checklist",
        "concepts/integrate",
        "concepts/integrate-in-depth",
        "concepts/integrate-checklist"
      ]
    },
    {
      "type": "category",
      "label": "Operations",
      "link": {
        "type": "doc",
        "id": "operations/index"
      },
      "items": [
        "operations/install",
        "operations/install-in-depth",
        "operations/install-checklist",
        "operations/configure",
        "operations/configure-in-depth",
        "operations/configure-checklist",
        "operations/deploy",
        "operations/deploy-in-depth",
        "operations/deploy-checklist",
        "operations/monitor",
        "operations/monitor-in-depth",
        "operations/monitor-checklist",
        "operations/scale",
        "operations/scale-in-depth",
        "operations/scale-checklist",
        "operations/secure",
        "operations/secure-in-depth",
        "operations/secure-checklist",
        "operations/backup",
        "operations/backup-in-depth",
        "operations/backup-checklist",
        "operations/migrate",
        "operations/migrate-in-depth",
        "operations/migrate-checklist",
        "operations/debug",
        "operations/debug-in-depth",
        "operations/debug-checklist",
        "operations/integrate",
        "operations/integrate-in-depth",
        "operations/integrate-checklist"
      ]
    },
    {
      "type": "category",
      "label": "Reference",
      "link": {
        "type": "doc",
        "id": "reference/index"
      },
      "items": [
        "reference/install",
        "reference/install-in-depth",
        "reference/install-checklist",
        "reference/configure",
        "reference/configure-in-depth",
        "reference/configure-checklist",
        "reference/deploy",
        "reference/deploy-in-depth",
        "reference/deploy-checklist",
        "reference/monitor",
        "reference/monitor-in-depth",
        "reference/monitor-checklist",
        "reference/scale",
        "reference/scale-in-depth",
        "reference/scale-checklist",
        "reference/secure",
        "reference/secure-in-depth",
        "reference/secure-checklist",
        "reference/backup",
        "reference/backup-in-depth",
        "reference/backup-checklist",
        "reference/migrate",
        "reference/migrate-in-depth",
        "reference/migrate-checklist",
        "reference/debug",
        "reference/debug-in-depth",
        "reference/debug-checklist",
        "reference/integrate",
        "reference/integrate-in-depth",
        "reference/integrate-checklist"
      ]
    },
    {
      "type": "category",
      "label": "Examples",
      "items": [
        {
          "type": "autogenerated",
          "dirName": "02-guides"
        }
      ]
    },
    "guides/never-written"
  ]
};

module.exports = sidebars;
