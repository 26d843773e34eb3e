// Package smp reads Service Metadata Publisher (SMP) records: the XML model of a
// ServiceGroup (which document types a participant accepts) and of a ServiceMetadata
// (processes, endpoints and certificates for one document type), parsers for those
// documents, the URL rules and an HTTP client that fetches them.
//
// The Peppol network speaks Peppol SMP 1.x (namespace
// http://busdox.org/serviceMetadata/publishing/1.0/). The parsers also accept OASIS BDXR
// SMP 1.0 (final 2016/05 and committee draft 2014/07) and OASIS SMP 2.0 documents, because
// neighbouring networks publish them and the cost of tolerating them is small.
//
// Parsing matches elements by local name, so the namespace prefixes SMPs choose (ns2:,
// smp:, ids:, default namespaces) do not matter; only the root element's namespace is
// checked. Text is trimmed. Document-type and process identifier values are
// case-sensitive and are kept exactly as published.
//
// Safety: encoding/xml does not expand entities declared in a DTD (an undeclared entity
// is a syntax error), so entity-expansion bombs ("billion laughs") cannot inflate a
// document, and it bounds nesting depth when decoding. Work and memory still grow with
// the input, so callers must cap the size of what they hand in; Client does (MaxBody).
//
// Each ServiceMetadata's XML-DSig signature is verified over the document as received
// (ServiceMetadata.Signature, package peppol/smpsig); whether its signer is trusted is
// the caller's to judge (package peppol/pki).
package smp
