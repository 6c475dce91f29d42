// @ts-check
const {themes} = require('prism-react-renderer');

/** @type {import('@docusaurus/types').Config} */
const config = {
  title: 'Acme Platform',
  url: 'https://docs.example.com',
  baseUrl: '/',
  onBrokenLinks: 'throw',
  staticDirectories: ['static'],
  presets: [
    [
      'classic',
      /** @type {import('@docusaurus/preset-classic').Options} */
      ({
        docs: {
          path: 'docs',
          routeBasePath: 'docs',
          sidebarPath: require.resolve('./sidebars.js'),
          editUrl: 'https://github.com/acme/docs/edit/main/',
        },
        blog: {showReadingTime: true},
        theme: {customCss: require.resolve('./src/css/custom.css')},
      }),
    ],
  ],
  themeConfig: {prism: {theme: themes.github}},
};

module.exports = config;
