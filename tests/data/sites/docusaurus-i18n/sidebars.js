// @ts-check

/** @type {import('@docusaurus/plugin-content-docs').SidebarsConfig} */
const sidebars = {
  "docs": [
    "intro",
    {
      "type": "category",
      "label": "Getting started",
      "collapsed": false,
      "link": {
        "type": "doc",
        "id": "getting-started/index"
      },
      "items": [
        "getting-started/install",
        "getting-started/configure",
        "getting-started/deploy",
        "getting-started/monitor",
        "getting-started/scale",
        "getting-started/secure",
        "getting-started/backup",
        "getting-started/migrate",
        "getting-started/debug",
        "getting-started/integrate",
        {
          "type": "category",
          "label": "In depth",
          "items": [
            "getting-started/install-advanced",
            "getting-started/configure-advanced",
            "getting-started/deploy-advanced",
            "getting-started/monitor-advanced",
            "getting-started/scale-advanced",
            "getting-started/secure-advanced",
            "getting-started/backup-advanced",
            "getting-started/migrate-advanced",
            "getting-started/debug-advanced",
            "getting-started/integrate-advanced"
          ]
        },
        {
          "type": "category",
          "label": "FAQ",
          "items": [
            "getting-started/install-faq",
            "getting-started/configure-faq",
            "getting-started/deploy-faq",
            "getting-started/monitor-faq",
            "getting-started/scale-faq",
            "getting-started/secure-faq",
            "getting-started/backup-faq",
            "getting-started/migrate-faq",
            "getting-started/debug-faq",
            "getting-started/integrate-faq"
          ]
        },
        {
          "type": "category",
          "label": "Examples",
          "items": [
            "getting-started/install-examples",
            "getting-started/configure-examples",
            "getting-started/deploy-examples",
            "getting-started/monitor-examples",
            "getting-started/scale-examples",
            "getting-started/secure-examples",
            "getting-started/backup-examples",
            "getting-started/migrate-examples",
            "getting-started/debug-examples",
            "getting-started/integrate-examples"
          ]
        }
      ]
    },
    {
      "type": "category",
      "label": "Guides",
      "collapsed": true,
      "link": {
        "type": "doc",
        "id": "guides/index"
      },
      "items": [
        "guides/install",
        "guides/configure",
        "guides/deploy",
        "guides/monitor",
        "guides/scale",
        "guides/secure",
        "guides/backup",
        "guides/migrate",
        "guides/debug",
        "guides/integrate",
        {
          "type": "category",
          "label": "In depth",
          "items": [
            "guides/install-advanced",
            "guides/configure-advanced",
            "guides/deploy-advanced",
            "guides/monitor-advanced",
            "guides/scale-advanced",
            "guides/secure-advanced",
            "guides/backup-advanced",
            "guides/migrate-advanced",
            "guides/debug-advanced",
            "guides/integrate-advanced"
          ]
        },
        {
          "type": "category",
          "label": "FAQ",
          "items": [
            "guides/install-faq",
            "guides/configure-faq",
            "guides/deploy-faq",
            "guides/monitor-faq",
            "guides/scale-faq",
            "guides/secure-faq",
            "guides/backup-faq",
            "guides/migrate-faq",
            "guides/debug-faq",
            "guides/integrate-faq"
          ]
        },
        {
          "type": "category",
          "label": "Examples",
          "items": [
            "guides/install-examples",
            "guides/configure-examples",
            "guides/deploy-examples",
            "guides/monitor-examples",
            "guides/scale-examples",
            "guides/secure-examples",
            "guides/backup-examples",
            "guides/migrate-examples",
            "guides/debug-examples",
            "guides/integrate-examples"
          ]
        }
      ]
    },
    {
      "type": "category",
      "label": "Concepts",
      "collapsed": true,
      "link": {
        "type": "doc",
        "id": "concepts/index"
      },
      "items": [
        "concepts/install",
        "concepts/configure",
        "concepts/deploy",
        "concepts/monitor",
        "concepts/scale",
        "concepts/secure",
        "concepts/backup",
        "concepts/migrate",
        "concepts/debug",
        "concepts/integrate",
        {
          "type": "category",
          "label": "In depth",
          "items": [
            "concepts/install-advanced",
            "concepts/configure-advanced",
            "concepts/deploy-advanced",
            "concepts/monitor-advanced",
            "concepts/scale-advanced",
            "concepts/secure-advanced",
            "concepts/backup-advanced",
            "concepts/migrate-advanced",
            "concepts/debug-advanced",
            "concepts/integrate-advanced"
          ]
        },
        {
          "type": "category",
          "label": "FAQ",
          "items": [
            "concepts/install-faq",
            "concepts/configure-faq",
            "concepts/deploy-faq",
            "concepts/monitor-faq",
            "concepts/scale-faq",
            "concepts/secure-faq",
            "concepts/backup-faq",
            "concepts/migrate-faq",
            "concepts/debug-faq",
            "concepts/integrate-faq"
          ]
        },
        {
          "type": "category",
          "label": "Examples",
          "items": [
            "concepts/install-examples",
            "concepts/configure-examples",
            "concepts/deploy-examples",
            "concepts/monitor-examples",
            "concepts/scale-examples",
            "concepts/secure-examples",
            "concepts/backup-examples",
            "concepts/migrate-examples",
            "concepts/debug-examples",
            "concepts/integrate-examples"
          ]
        }
      ]
    },
    {
      "type": "category",
      "label": "Operations",
      "collapsed": true,
      "link": {
        "type": "doc",
        "id": "operations/index"
      },
      "items": [
        "operations/install",
        "operations/configure",
        "operations/deploy",
        "operations/monitor",
        "operations/scaling-overview",
        "operations/secure",
        "operations/backup",
        "operations/migrate",
        "operations/debug",
        "operations/integrate",
        {
          "type": "category",
          "label": "In depth",
          "items": [
            "operations/install-advanced",
            "operations/configure-advanced",
            "operations/deploy-advanced",
            "operations/monitor-advanced",
            "operations/scale-advanced",
            "operations/secure-advanced",
            "operations/backup-advanced",
            "operations/migrate-advanced",
            "operations/debug-advanced",
            "operations/integrate-advanced"
          ]
        },
        {
          "type": "category",
          "label": "FAQ",
          "items": [
            "operations/install-faq",
            "operations/configure-faq",
            "operations/deploy-faq",
            "operations/monitor-faq",
            "operations/scale-faq",
            "operations/secure-faq",
            "operations/backup-faq",
            "operations/migrate-faq",
            "operations/debug-faq",
            "operations/integrate-faq"
          ]
        },
        {
          "type": "category",
          "label": "Examples",
          "items": [
            "operations/install-examples",
            "operations/configure-examples",
            "operations/deploy-examples",
            "operations/monitor-examples",
            "operations/scale-examples",
            "operations/secure-examples",
            "operations/backup-examples",
            "operations/migrate-examples",
            "operations/debug-examples",
            "operations/integrate-examples"
          ]
        }
      ]
    },
    {
      "type": "category",
      "label": "Integrations",
      "items": [
        {
          "type": "autogenerated",
          "dirName": "06-integrations"
        }
      ]
    },
    {
      "type": "link",
      "label": "API status",
      "href": "https://status.example.com"
    },
    "guides/never-written"
  ],
  "reference": [
    {
      "type": "autogenerated",
      "dirName": "05-reference"
    }
  ]
};

module.exports = sidebars;
