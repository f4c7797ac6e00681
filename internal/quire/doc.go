// Package quire is the vocabulary every layer shares: the resources (Node for pages, folders,
// mind maps and databases; Block; Property and its options; View; MindMap; File; Workspace, User,
// Token and Principal), the scopes a token carries, ids, dates, and the one error type, Error,
// whose code, message and details[].path reach a client. It does no I/O and imports nothing of
// Quire's, so httpapi, service, store and the pure packages may all import it.
package quire
