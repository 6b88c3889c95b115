import fs from 'fs';
import url from 'url';
const path = process.argv[2];
const katex = (await import(url.pathToFileURL(path).href)).default;
const src = fs.readFileSync(path, 'utf8');
const names = new Set();
for (const m of src.matchAll(/\\\\([A-Za-z]+)/g)) names.add(m[1]);
const ok = [];
for (const n of [...names].sort()) {
  let good = false;
  for (const t of [`\\${n}`, `\\${n}{x}`, `\\${n}{x}{y}`, `\\${n}[a]{x}`, `\\begin{${n}}x\\end{${n}}`]) {
    try { katex.renderToString(t, {throwOnError: true, strict: 'ignore', displayMode: true}); good = true; break; }
    catch (e) { if (!String(e.message).includes('Undefined control sequence') && !String(e.message).includes('No such environment')) { good = true; break; } }
  }
  if (good) ok.push(n);
}
console.log(JSON.stringify({version: katex.version, candidates: names.size, supported: ok.length}));
fs.writeFileSync(process.argv[3], ok.join('\n') + '\n');
