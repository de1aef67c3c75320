// Package experience is self-navigating: a pool of experience distilled
// from earlier episodes, injected into rollouts and stripped for training
// (reference §5), with HET's off-policy clip range for the stripped
// samples.
//
// # Experience stores
//
// Two Pools come with the package. A LocalPool keeps the pool in process:
// a Store (a Workspace of a StoreFile: an embedded bbolt file, one bucket
// per workspace, durable and safe for concurrent use) searched by cosine
// similarity of embeddings, and a Summarizer that distils finished
// episodes into it; it queries with the task's last user message. A
// Workspace records its Embedder's name and dimension and refuses any
// other; LocalEmbedder needs no service, OpenAIEmbedder uses any
// OpenAI-compatible embeddings endpoint. ReMe is the reference's external
// service, spoken exactly as the reference does (§5.5), with typed errors:
// its outages, like an embedding endpoint's, match llm.ErrUnavailable, and
// the caller decides whether a failed retrieval means "no experience" or
// a pause. A file that is not a store, or is damaged, is reported as
// ErrCorruptStore and never emptied or overwritten.
package experience
