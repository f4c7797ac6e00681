// The README tour through a client generated from the served OpenAPI document
// (openapi-typescript + openapi-fetch): every request body and answer below is typed by
// schema.d.ts, with no cast and no `any`, so a document change that breaks one of these calls
// fails `tsc`. clients/clients_test.go generates schema.d.ts, type-checks and runs this file
// against a real `quire serve`; it reads QUIRE_URL and QUIRE_TOKEN.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];

const baseUrl = process.env.QUIRE_URL ?? "http://127.0.0.1:8080";
const token = process.env.QUIRE_TOKEN ?? "";
const quire = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

// must returns a call's typed answer, or throws with the API's error body.
function must<T, E>(r: { data?: T; error?: E; response: Response }, what: string): T {
  if (r.data === undefined) {
    throw new Error(`${what}: HTTP ${r.response.status} ${JSON.stringify(r.error)}`);
  }
  return r.data;
}

function check(cond: boolean, what: string): void {
  if (!cond) throw new Error(`tour: ${what}`);
}

function text(content: string): Schemas["RichTextItemInput"][] {
  return [{ type: "text", text: { content } }];
}

// A 1×1 PNG, uploaded and used as the page's cover.
const png = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="),
  (c) => c.charCodeAt(0),
);

async function main(): Promise<void> {
  const me = must(await quire.GET("/v2/users/me"), "users/me");
  check(me.object === "bot_user" && me.workspace_scoped === true, `bot user ${me.id}`);
  const users = must(await quire.GET("/v2/users", { params: { query: { page_size: 1 } } }), "users");
  check(users.results.length === 1, "one user per page");

  // A page with content of several block types, each typed by its type.
  const page = must(
    await quire.POST("/v2/pages", {
      body: {
        parent: { type: "workspace", workspace: true },
        properties: { title: text("Meeting notes") },
        icon: { type: "emoji", emoji: "📝" },
        children: [
          { type: "heading_1", heading_1: { rich_text: text("Agenda") } },
          { type: "to_do", to_do: { rich_text: text("Ship it"), checked: true } },
          { type: "code", code: { language: "go", rich_text: text("fmt.Println(42)") } },
        ],
      },
    }),
    "create page",
  );
  check(page.page_type === "page" && page.icon?.emoji === "📝", "page icon");

  // Append: a paragraph at the end, a divider first, a table of contents after it.
  const added = must(
    await quire.PATCH("/v2/blocks/{block_id}/children", {
      params: { path: { block_id: page.id } },
      body: {
        children: [
          {
            type: "paragraph",
            paragraph: { rich_text: [...text("Added later, "), { type: "text", text: { content: "in bold" }, annotations: { bold: true } }] },
          },
        ],
      },
    }),
    "append",
  );
  const para = added.results[0];
  check(para?.type === "paragraph" && para.paragraph.rich_text.map((t) => t.plain_text).join("") === "Added later, in bold", "paragraph");
  const first = must(
    await quire.PATCH("/v2/blocks/{block_id}/children", {
      params: { path: { block_id: page.id } },
      body: { children: [{ type: "divider", divider: {} }], position: { type: "start" } },
    }),
    "append at start",
  );
  const divider = first.results[0];
  check(divider !== undefined && divider.type === "divider", "appended divider");
  must(
    await quire.PATCH("/v2/blocks/{block_id}/children", {
      params: { path: { block_id: page.id } },
      body: { children: [{ type: "table_of_contents", table_of_contents: {} }], after: divider?.id ?? null },
    }),
    "append after",
  );
  const blocks = must(
    await quire.GET("/v2/blocks/{block_id}/children", { params: { path: { block_id: page.id } } }),
    "children",
  );
  const types = blocks.results.map((b) => b.type).join(",");
  check(types === "divider,table_of_contents,heading_1,to_do,code,paragraph", `block types ${types}`);
  const md = must(
    await quire.GET("/v2/pages/{page_id}/content/markdown", { params: { path: { page_id: page.id } } }),
    "markdown",
  );
  check(md.markdown.includes("- [x] Ship it"), "markdown to-do");

  // A sub-page, then the tree walked by parent_id, following next_cursor.
  must(
    await quire.POST("/v2/pages", {
      body: { parent: { type: "page_id", page_id: page.id }, properties: { title: text("Sub-page") } },
    }),
    "create sub-page",
  );
  let cursor: string | undefined;
  const titles: string[] = [];
  do {
    const list = must(
      await quire.GET("/v2/pages", { params: { query: { parent_id: page.id, page_size: 1, start_cursor: cursor } } }),
      "list pages",
    );
    titles.push(...list.results.map((n) => n.title));
    cursor = list.next_cursor ?? undefined;
  } while (cursor !== undefined);
  check(titles.join("|").includes("Sub-page"), `sub-pages ${titles.join("|")}`);

  // Versions: a write with the ETag just read applies; the same ETag again answers 409.
  const read = await quire.GET("/v2/pages/{page_id}", { params: { path: { page_id: page.id } } });
  const etag = read.response.headers.get("ETag") ?? "";
  const patch = { params: { path: { page_id: page.id }, header: { "If-Match": etag } }, body: { icon: null } };
  const cleared = must(await quire.PATCH("/v2/pages/{page_id}", patch), "patch with If-Match");
  check(cleared.icon === null, "icon cleared");
  const stale = await quire.PATCH("/v2/pages/{page_id}", patch);
  check(stale.response.status === 409 && stale.error?.code === "conflict", "stale ETag answers conflict");

  await tourDatabase(page.id);
  await tourMindMap(page.id);
  await tourFilesAndSearch(page.id);

  // Errors have one shape, with the failing field's path.
  const bad = await quire.GET("/v2/users", { params: { query: { page_size: 500 } } });
  const detail = bad.error?.details?.[0];
  check(bad.error?.code === "validation_error" && detail?.path === "page_size", `error ${JSON.stringify(bad.error)}`);
  check((bad.error?.request_id ?? "") !== "", "error carries request_id");
  console.log("tour ok");
}

// A database, records with select, number and date values, a compound query, a view.
async function tourDatabase(parent: string): Promise<void> {
  const db = must(
    await quire.POST("/v2/databases", {
      body: {
        parent: { type: "page_id", page_id: parent },
        title: text("Tasks"),
        properties: {
          Name: { title: {} },
          Status: { select: { options: [{ name: "To do" }, { name: "In progress" }, { name: "Done" }] } },
          Points: { number: {} },
          Due: { date: {} },
        },
      },
    }),
    "create database",
  );
  const record = (name: string, status: string, points: number, due: string): Schemas["MutationInput"] => ({
    op: "create",
    properties: {
      Name: { title: text(name) },
      Status: { select: { name: status } },
      Points: { number: points },
      Due: { date: { start: due } },
    },
  });
  // One record as a page under the database, the others in one atomic batch.
  const first = must(
    await quire.POST("/v2/pages", {
      body: { parent: { type: "database_id", database_id: db.id }, properties: record("Ship it", "In progress", 3, "2026-12-01").properties },
    }),
    "create record",
  );
  const status = first.properties["Status"];
  check(status?.type === "select" && status.select?.name === "In progress", "record's select value");
  const made = must(
    await quire.POST("/v2/databases/{database_id}/mutations", {
      params: { path: { database_id: db.id } },
      body: {
        mutations: [
          record("Write docs", "In progress", 5, "2026-12-02"),
          record("Celebrate", "Done", 8, "2026-12-03"),
        ],
      },
    }),
    "create records",
  );
  check(made.results.length === 2, "two records");
  const found = must(
    await quire.POST("/v2/databases/{database_id}/query", {
      params: { path: { database_id: db.id } },
      body: {
        filter: {
          and: [
            { property: "Status", select: { equals: "In progress" } },
            { or: [{ property: "Points", number: { greater_than: 4 } }, { property: "Due", date: { before: "2026-12-02" } }] },
          ],
        },
        sorts: [{ property: "Points", direction: "descending" }],
      },
    }),
    "query",
  );
  const names = found.results.map((p) => {
    const name = p.properties["Name"];
    return ((name?.type === "title" ? name.title : undefined) ?? []).map((t) => t.plain_text).join("");
  });
  check(names.join(",") === "Write docs,Ship it", `query order ${names.join(",")}`);
  const view = must(
    await quire.POST("/v2/databases/{database_id}/views", {
      params: { path: { database_id: db.id } },
      body: { name: "All", type: "table" },
    }),
    "create view",
  );
  check(view.type === "table", "table view");
}

// A mind map, then add, update, move and delete in one atomic edit.
async function tourMindMap(parent: string): Promise<void> {
  const made = must(
    await quire.POST("/v2/mind-maps", {
      body: {
        parent: { type: "page_id", page_id: parent },
        title: "Plan",
        root: { text: "Launch", children: [{ text: "Docs" }, { text: "Tests" }] },
      },
    }),
    "create mind map",
  );
  const root = made.root;
  const [docs, tests] = root.children;
  check(docs !== undefined && tests !== undefined, "two children");
  const edited = must(
    await quire.PATCH("/v2/mind-maps/{mind_map_id}", {
      params: { path: { mind_map_id: made.id } },
      body: {
        edits: [
          { op: "add", parent_id: root.id, node: { text: "Blog post" } },
          { op: "update", node_id: docs?.id ?? "", text: "API docs" },
          { op: "move", node_id: tests?.id ?? "", parent_id: docs?.id ?? "" },
        ],
      },
    }),
    "edit mind map",
  );
  const texts = edited.root.children.map((n) => n.text).join(",");
  check(texts === "API docs,Blog post" && edited.node_count === 4, `mind map ${texts}`);
  const deleted = must(
    await quire.PATCH("/v2/mind-maps/{mind_map_id}", {
      params: { path: { mind_map_id: made.id } },
      body: { edits: [{ op: "delete", node_id: tests?.id ?? "" }] },
    }),
    "delete node",
  );
  check(deleted.node_count === 3, "node deleted");
}

// An upload used as the page's cover and in a file block, then keyword and semantic search.
async function tourFilesAndSearch(pageID: string): Promise<void> {
  const up = must(
    await quire.POST("/v2/files/upload-url", {
      body: { filename: "cover.png", content_type: "image/png", size: png.length, parent: { page_id: pageID } },
    }),
    "upload-url",
  );
  // The upload URL is signed: no token, and no part of the typed API.
  const put = await fetch(up.upload_url, { method: up.method, headers: up.headers, body: png });
  check(put.status === 200, `PUT upload: ${put.status}`);
  const covered = must(
    await quire.PATCH("/v2/pages/{page_id}", {
      params: { path: { page_id: pageID } },
      body: { cover: { type: "file_upload", file_upload: { id: up.id } } },
    }),
    "cover from upload",
  );
  check(covered.cover?.type === "file" && (covered.cover.file?.url ?? "") !== "", "cover served as a file");
  const shown = must(
    await quire.PATCH("/v2/blocks/{block_id}/children", {
      params: { path: { block_id: pageID } },
      body: { children: [{ type: "file", file: { type: "file_upload", file_upload: { id: up.id } } }] },
    }),
    "file block",
  );
  const fileBlock = shown.results[0];
  check(fileBlock?.type === "file" && (fileBlock.file.file?.url ?? "") !== "", "file block served with a URL");

  const hits = must(await quire.POST("/v2/search", { body: { query: "ship" } }), "search");
  check(hits.results.length > 0, "search finds the page");
  const recent = must(
    await quire.POST("/v2/search", {
      body: { filter: { property: "object", value: "page" }, sort: { timestamp: "created_time", direction: "ascending" }, page_size: 2 },
    }),
    "search sorted",
  );
  check(recent.results.length === 2 && recent.has_more, "two per page");
  const semantic = await quire.POST("/v2/search/semantic", { body: { query: "to-do items for the release" } });
  // 503 while the model is still loading is an answer the document declares, with its body.
  check(semantic.data !== undefined || semantic.error?.code === "service_unavailable", `semantic: ${semantic.response.status}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
