// Package clients proves that clients generated from the served OpenAPI document work: its
// test builds quire, serves a fresh store on each engine, generates a TypeScript client
// (openapi-typescript + openapi-fetch, ts/) and a Go client (oapi-codegen, go/) from
// GET /v2/openapi.json, type-checks the README tour written with each, and runs both tours
// against the server. The tools are pinned in ts/package-lock.json and go/go.mod; the test
// runs when QUIRE_TEST_CLIENTS=1, as .ci/run sets it, because it needs node, npm and the
// npm registry.
package clients
