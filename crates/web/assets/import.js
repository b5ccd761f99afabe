// The import pages: a chosen CSV file is read into the text field (the form posts text, so it
// also works by pasting), a chosen XLSX workbook into a hidden field as base64, and the run form sends the checked rows 25 at a time, moving the
// progress bar and listing each row's result. Without scripts the run form posts every row
// at once and the server answers with the results.
(function () {
  'use strict';
  var file = document.getElementById('import-file');
  var text = document.getElementById('import-csv');
  var workbook = document.getElementById('import-xlsx');
  var note = document.getElementById('import-file-note');
  function isWorkbook(f) {
    return /\.xlsx$/i.test(f.name) ||
      f.type === 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  }
  if (file && text && window.FileReader) {
    file.addEventListener('change', function () {
      var f = file.files && file.files[0];
      if (!f) { return; }
      var reader = new FileReader();
      if (workbook && isWorkbook(f)) {
        // a workbook goes to the server whole, as base64; the server reads its first sheet
        reader.onload = function () {
          var url = String(reader.result || '');
          workbook.value = url.slice(url.indexOf(',') + 1);
          text.value = '';
          if (note) {
            note.textContent = f.name + ' is ready: its first sheet is checked when you press the button.';
            note.hidden = false;
          }
        };
        reader.readAsDataURL(f);
        return;
      }
      if (workbook) { workbook.value = ''; }
      if (note) { note.hidden = true; }
      reader.onload = function () { text.value = String(reader.result || ''); };
      reader.readAsText(f);
    });
  }
  if (text && workbook) {
    // typing or pasting CSV replaces a chosen workbook
    text.addEventListener('input', function () {
      workbook.value = '';
      if (note) { note.hidden = true; }
    });
  }

  var form = document.getElementById('run-form');
  var bar = document.getElementById('import-progress');
  var said = document.getElementById('import-progress-text');
  var table = document.getElementById('import-results');
  if (!form || !bar || !window.fetch) { return; }
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var button = form.querySelector('button');
    if (button) { button.disabled = true; }
    var csrf = form.elements.csrf.value;
    var rows = JSON.parse(form.elements.rows.value || '[]');
    var done = 0;
    var counts = { tracked: 0, 'already tracked': 0, refused: 0 };
    var body = table ? table.querySelector('tbody') : null;
    if (table) { table.hidden = false; }

    function show(r) {
      counts[r.outcome] = (counts[r.outcome] || 0) + 1;
      if (!body) { return; }
      var tr = document.createElement('tr');
      [String(r.line), r.number, r.outcome + (r.detail ? ': ' + r.detail : '')].forEach(function (v) {
        var td = document.createElement('td');
        td.textContent = v;
        tr.appendChild(td);
      });
      body.appendChild(tr);
    }

    function next() {
      if (done >= rows.length) {
        said.textContent = 'Done: ' + counts.tracked + ' tracked, ' + counts['already tracked'] +
          ' already tracked, ' + counts.refused + ' refused.';
        form.setAttribute('data-state', 'done');
        return;
      }
      var batch = rows.slice(done, done + 25);
      var params = new URLSearchParams();
      params.set('csrf', csrf);
      params.set('rows', JSON.stringify(batch));
      fetch('/console/imports/run', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
        body: params
      })
        .then(function (r) {
          if (!r.ok) { throw new Error('the server answered ' + r.status); }
          return r.json();
        })
        .then(function (answer) {
          (answer.results || []).forEach(show);
          done += batch.length;
          bar.value = done;
          bar.textContent = done + ' of ' + rows.length;
          said.textContent = done + ' of ' + rows.length + ' rows sent.';
          next();
        })
        .catch(function (e) {
          said.textContent = 'Stopped after ' + done + ' rows: ' + e.message + '. Check the file again to send the rest (rows already tracked are skipped).';
          form.setAttribute('data-state', 'error');
          if (button) { button.disabled = false; }
        });
    }
    next();
  });
})();
