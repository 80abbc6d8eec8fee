// Renders the API reference from the description served beside this page (`openapi.json`).
const container = document.getElementById('reference');
window.Redoc.init(
  container.dataset.document,
  {
    expandResponses: '200',
    hideHostname: false,
    jsonSampleExpandLevel: 3,
    pathInMiddlePanel: true,
    sortTagsAlphabetically: false,
    theme: {
      colors: { primary: { main: '#1f5fbf' } },
      typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } },
    },
  },
  container,
);
