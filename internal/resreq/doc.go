// Package resreq is LSF's resource requirement language: the strings of
// bsub -R, queue RES_REQ, STOP_COND/RESUME_COND, lsload/lshosts/lsplace/
// lsrun/bhosts -R.
//
// # Use
//
//	t, _ := resreq.NewTable(defsFromLSFShared)          // once per configuration
//	r, err := resreq.Parse(s, resreq.Options{Table: t, Context: resreq.CtxBsub})
//	c, err := r.Compile(t, resreq.Local{Type: "LINUX64", Model: "EPYC"})
//	if c.Select(&host) { ... }                          // no allocation
//	sort.Slice(hosts, func(i, j int) bool { return c.Less(hosts[i], hosts[j]) })
//
// ParseMulti merges bsub's several -R options, Merge combines a job's
// requirement with its queue's RES_REQ (LSF's rules), CheckSelect is bsub's
// BSUB_CHK_RESREQ check. String prints the canonical form that bjobs -l and
// bqueues -l show; parsing it with the same Options gives an equal ResReq.
//
// # Resource table
//
// A Table holds the cluster's resources: the built-in load indices at LSF's
// load index numbers (r15s=0 ... mem=10), then the static built-ins (ncpus
// ... maxslots), then the lsf.shared resources given to NewTable. Every name
// in a requirement is resolved against it; evaluation uses table indices only.
//
// # Structure
//
// A scanner (Init with an error handler, tokens with Precedence) feeds a
// parser that first finds the sections of a simple requirement (select,
// order, rusage, span, same, cu; the implicit select first), then parses
// each: the select string by precedence climbing into an AST with byte
// positions, which a checker resolves against the table and types (numeric,
// Boolean, string resource, string value). Compound (n*{...} + ...) and
// alternative ({...} || {...}) requirements hold simple ones. The compiler
// turns a select tree into a node array with resource indices and fused
// opcodes (resource-compared-with-constant and the like).
//
// # Evaluation
//
// A Host is a vector of values by table index: numbers (Booleans 1 or 0),
// strings, and its exclusive resources. An undefined value (NaN, "") makes
// every comparison false, arithmetic NaN, and counts as false in && || !.
// Memory values (mem swp tmp maxmem maxswp maxtmp) are MB internally; a
// literal compared with one of them may carry a unit (KB K MB M GB G TB T PB
// P EB E ZB Z), and a literal without one compared with mem, swp or tmp is in
// LSF_UNIT_FOR_LIMITS (Options.Unit, MB by default). ut is a fraction
// (0.0-1.0). type and model compared with the bare words any and local mean
// any value and the submission host's value. defined(x) is true when the
// host has resource x. A host with exclusive resources (!bigmem) is selected
// only by a requirement whose select section names each of them.
//
// The default type rule (TypeRule) is the seed's: for bsub, bhosts, lsplace,
// lsrun and lsgrun type==local unless the select section names a string or
// Boolean resource (then type==any); lshosts and lsload type==any; a queue's
// RES_REQ type==local unless it names a host model or a Boolean resource;
// STOP_COND/RESUME_COND none. Naming type itself lifts every default.
//
// Order keys sort by the index's INCREASING property (smaller first for an
// increasing index such as r15s or ut, larger first for mem or slots), a
// leading '-' reversing it; undefined values sort last; r15s:pg by default.
//
// # Strict and old syntax
//
// With Options.Strict (LSF_STRICT_RESREQ=Y) the select section follows every
// rule of the strict syntax: case-sensitive names; Boolean resources only
// with && || !; string resources only with comparisons; no blanks inside
// defined( ); no !!; sections separated (no "type==anyrusage[...]"); one
// select section; no colon; quotes only around the whole string; no escapes
// in quoted strings; values of shared string resources in single quotes
// (os_version=='4.2'); no text outside sections; ut between 0.0 and 1.0; and
// rusage rejects non-consumable resources.
//
// Without it, the parser accepts what LSF's old syntax accepted, with these
// decisions (each tested):
//   - names, section keywords, defined, any and local ignore case;
//   - Boolean resources are numbers (fs == 1, fs + hpux > 1);
//   - defined(  x  ) with blanks, and !!x, are accepted;
//   - a section keyword glued to the select string is split off
//     (type==anyrusage[...] is type==any rusage[...]);
//   - colons separate conditions, ANDed, binding loosest of all (linux:qscw
//     is linux && qscw; the old restricted syntax of lsfintro);
//   - what LSF silently ignored is ignored, and reported in ResReq.Notes: a
//     word after the sections (microcs73 in "linux rusage[...] microcs73", linux
//     in "rusage[...] linux"), a second select section, and the operator
//     dangling before it ("mem < 16384 && select[AMD64]" is mem < 16384),
//     non-consumable resources in rusage;
//   - ut compared with a number above 1 takes it as a percentage (LSF 6:
//     ut < 70 is ut < 0.7);
//   - backslashes in quoted strings are kept as written;
//   - a shared string resource may be compared with a bare word.
//
// Quotes inside a section, unknown names and functions, and malformed
// sections are errors in both modes.
//
// # Errors
//
// Parse returns an ErrorList of positioned *Error; Error() is LSF's check
// mode text, Error near "<token>": <reason>. Each wraps ErrSyntax ("Bad
// resource requirement syntax", what bsub prints for every bad string) or
// ErrUnknownResource ("Unknown resource name"); Merge's conflicts wrap
// ErrMerge. The select tree is at most 1000 operators deep (maxDepth), so
// the canonical form of an accepted string always parses back.
package resreq
