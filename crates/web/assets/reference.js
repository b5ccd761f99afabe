// The API reference page: Redoc (vendored, see assets/vendor/redoc) renders the served
// OpenAPI document. A file of its own so the page's content security policy allows no inline
// script.
(function () {
  var root = document.getElementById('reference');
  if (!root || !window.Redoc) {
    return;
  }
  window.Redoc.init(
    '/v2/openapi.json',
    {
      hideDownloadButton: false,
      expandResponses: '200,201',
      jsonSampleExpandLevel: 3,
      theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } }
    },
    root
  );
})();
