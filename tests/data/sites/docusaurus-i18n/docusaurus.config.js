// @ts-check
const {themes} = require('prism-react-renderer');

/** @type {import('@docusaurus/types').Config} */
const config = {
  title: 'Acme Platform',
  url: 'https://docs.example.com',
  baseUrl: '/',
  trailingSlash: false,
  onBrokenLinks: 'throw',
  i18n: {
    defaultLocale: 'en',
    locales: ['en', 'fr', 'ja'],
    localeConfigs: {fr: {label: 'Français'}, ja: {label: '日本語'}},
  },
  presets: [
    [
      'classic',
      /** @type {import('@docusaurus/preset-classic').Options} */
      ({
        docs: {
          path: 'docs',
          routeBasePath: 'docs',
          sidebarPath: './sidebars.js',
          editUrl: 'https://github.com/acme/platform/edit/main/website/',
          lastVersion: '3.0',
          onlyIncludeVersions: ['current', '3.0', '2.0'],
          versions: {
            current: {label: 'Next', path: 'next', banner: 'unreleased'},
            '2.0': {label: '2.x', path: '2.x', banner: 'unmaintained'},
          },
        },
        blog: false,
        theme: {customCss: './src/css/custom.css'},
      }),
    ],
  ],
  plugins: [
    [
      '@docusaurus/plugin-content-docs',
      {
        id: 'community',
        path: 'community',
        routeBasePath: 'community',
        sidebarPath: './sidebarsCommunity.js',
      },
    ],
  ],
  themeConfig: {
    navbar: {
      items: [
        {type: 'docsVersionDropdown'},
        {type: 'localeDropdown', position: 'right'},
        {to: '/community', label: 'Community', position: 'left'},
      ],
    },
    prism: {theme: themes.github},
  },
};

module.exports = config;
