package fairshare

import (
	"container/heap"
	"math"
	"sort"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
)

// Factors are the fairshare parameters of a queue (lsb.params, overridden
// by the queue).
type Factors struct {
	CPUTime, RunTime, RunJob float64
	// HistHours is HIST_HOURS: history decays to a tenth after it.
	HistHours float64
}

// QueueFactors returns the factors in force for queue q.
func QueueFactors(p *config.Params, q *config.Queue) Factors {
	f := Factors{CPUTime: p.CPUTimeFactor, RunTime: p.RunTimeFactor, RunJob: p.RunJobFactor, HistHours: p.HistHours}
	if q != nil {
		if q.CPUTimeFactor != nil {
			f.CPUTime = *q.CPUTimeFactor
		}
		if q.RunTimeFactor != nil {
			f.RunTime = *q.RunTimeFactor
		}
		if q.RunJobFactor != nil {
			f.RunJob = *q.RunJobFactor
		}
		if q.HistHours != nil {
			f.HistHours = *q.HistHours
		}
	}
	return f
}

// Usage is what an account has used, in seconds.
type Usage struct {
	CPU     float64 // running jobs' CPU time plus decayed history
	Run     float64 // wall-clock time of running jobs
	HistRun float64 // decayed run time of finished jobs
	Slots   int     // slots of started jobs
}

func (u *Usage) add(v Usage) {
	u.CPU += v.CPU
	u.Run += v.Run
	u.HistRun += v.HistRun
	u.Slots += v.Slots
}

// Priority is the dynamic priority of an account with shares shares.
func Priority(shares int, u Usage, f Factors) float64 {
	load := u.CPU/3600*f.CPUTime + (u.Run+u.HistRun)/3600*f.RunTime + float64(1+u.Slots)*f.RunJob
	if load < 0.01 {
		load = 0.01
	}
	return float64(shares) / load
}

// Decay returns the factor history decays by over d (HIST_HOURS h).
func Decay(d time.Duration, h float64) float64 {
	if h <= 0 || d <= 0 {
		return 1
	}
	return math.Pow(0.1, d.Hours()/h)
}

// History is the decayed usage of finished jobs per scope (a queue, or a
// host partition) and user. It is the only fairshare state kept between
// scheduling passes; mbatchd rebuilds it after a restart from the finished
// jobs it still holds.
type History struct {
	recs map[histKey]*histRec
}

type histKey struct{ scope, user string }

type histRec struct {
	cpu, run float64
	at       time.Time
	hist     float64 // HIST_HOURS in force when last decayed
}

// Add records a finished run: cpu and run seconds that ended at time at.
func (h *History) Add(scope, user string, cpu, run float64, at time.Time, histHours float64) {
	if h.recs == nil {
		h.recs = map[histKey]*histRec{}
	}
	k := histKey{scope, user}
	r := h.recs[k]
	if r == nil {
		r = &histRec{at: at, hist: histHours}
		h.recs[k] = r
	}
	if at.After(r.at) {
		f := Decay(at.Sub(r.at), histHours)
		r.cpu, r.run, r.at = r.cpu*f, r.run*f, at
	} else if at.Before(r.at) {
		// A late record: decay it to the record's time instead.
		f := Decay(r.at.Sub(at), histHours)
		cpu, run = cpu*f, run*f
	}
	r.cpu += cpu
	r.run += run
	r.hist = histHours
}

// Get returns the decayed CPU and run seconds of user in scope at now.
func (h *History) Get(scope, user string, now time.Time, histHours float64) (cpu, run float64) {
	r := h.recs[histKey{scope, user}]
	if r == nil {
		return 0, 0
	}
	f := Decay(now.Sub(r.at), histHours)
	return r.cpu * f, r.run * f
}

// Users calls fn for every user with history in scope.
func (h *History) Users(scope string, fn func(user string)) {
	var us []string
	for k := range h.recs {
		if k.scope == scope {
			us = append(us, k.user)
		}
	}
	sort.Strings(us)
	for _, u := range us {
		fn(u)
	}
}

// Prune forgets history that has decayed below a thousandth of a second.
func (h *History) Prune(now time.Time, histHours float64) {
	for k, r := range h.recs {
		f := Decay(now.Sub(r.at), histHours)
		if r.cpu*f < 1e-3 && r.run*f < 1e-3 {
			delete(h.recs, k)
		}
	}
}

// Node is an account of a share tree.
type Node struct {
	Name   string
	Kind   config.ShareKind
	Shares int
	Parent *Node
	// Children is a group's share tree; empty for users, the catch-alls
	// and groups whose members compete first come, first served.
	Children []*Node
	// Members are the users of a group without a share tree.
	Members []string
	Usage   Usage
	// Priority is set by Tree.Compute.
	Priority float64

	order int // position among its siblings
	// dispatch state
	work  int // jobs still to offer under this node
	heap  nodeHeap
	hidx  int // index in the parent's heap, -1 when absent
	prio  float64
	jobs  []int // a leaf's job handles still to offer
	jnext int
}

// Tree is a share tree with its accounts for one pass.
type Tree struct {
	Root   *Node
	leaf   map[string]*Node // user -> the account charged for the user
	def    *Node            // the "default" assignment, nil if none
	others *Node
	f      Factors
}

// Build builds a tree from resolved share assignments (config.ShareTree).
func Build(nodes []*config.ShareNode, f Factors) *Tree {
	t := &Tree{Root: &Node{Name: "/", Kind: config.ShareGroup, hidx: -1}, leaf: map[string]*Node{}, f: f}
	t.build(t.Root, nodes)
	return t
}

func (t *Tree) build(parent *Node, nodes []*config.ShareNode) {
	for _, sn := range nodes {
		n := &Node{Name: sn.Name, Kind: sn.Kind, Shares: sn.Shares, Parent: parent, Members: sn.Members, order: len(parent.Children), hidx: -1}
		switch sn.Kind {
		case config.ShareDefault:
			if parent == t.Root && t.def == nil {
				t.def = n
			}
			continue // instantiated per user
		case config.ShareOthers:
			if parent == t.Root && t.others == nil {
				t.others = n
			}
		case config.ShareUser:
			if _, dup := t.leaf[sn.Name]; !dup {
				t.leaf[sn.Name] = n
			}
		case config.ShareGroup:
			if len(sn.Children) > 0 {
				t.build(n, sn.Children)
			} else {
				for _, m := range sn.Members {
					if _, dup := t.leaf[m]; !dup {
						t.leaf[m] = n
					}
				}
			}
		}
		parent.Children = append(parent.Children, n)
	}
}

// Account returns the node charged for user's jobs: the user's own node,
// the group (without share tree) that lists the user, a node made for the
// user from "default", or "others"; nil when the user has no share.
func (t *Tree) Account(user string) *Node {
	if n := t.leaf[user]; n != nil {
		return n
	}
	if t.def != nil {
		n := &Node{Name: user, Kind: config.ShareUser, Shares: t.def.Shares, Parent: t.Root, order: t.def.order, hidx: -1}
		t.Root.Children = append(t.Root.Children, n)
		t.leaf[user] = n
		return n
	}
	if t.others != nil {
		t.leaf[user] = t.others
		return t.others
	}
	return nil
}

// Charge adds u to user's account and its ancestors.
func (t *Tree) Charge(user string, u Usage) {
	for n := t.Account(user); n != nil; n = n.Parent {
		n.Usage.add(u)
	}
}

// Compute sets every node's Priority from its usage.
func (t *Tree) Compute() { t.compute(t.Root) }

func (t *Tree) compute(n *Node) {
	n.Priority = Priority(n.Shares, n.Usage, t.f)
	for _, c := range n.Children {
		t.compute(c)
	}
}

// Accounts lists the tree as bqueues -l and bhpart show it: top level
// first, each group followed by its subtree; group names end in "/".
func (t *Tree) Accounts() []*api.ShareAccount {
	var out []*api.ShareAccount
	var walk func(n *Node)
	walk = func(n *Node) {
		kids := append([]*Node(nil), n.Children...)
		sort.SliceStable(kids, func(i, j int) bool { return kids[i].order < kids[j].order })
		for _, c := range kids {
			name := c.Name
			if c.Kind == config.ShareGroup || c.Kind == config.ShareOthers {
				name += "/"
			}
			out = append(out, &api.ShareAccount{Name: name, Shares: int32(c.Shares), Priority: round3(Priority(c.Shares, c.Usage, t.f)),
				Started: int32(c.Usage.Slots), CPUTime: round3(c.Usage.CPU), RunTime: int64(c.Usage.Run + c.Usage.HistRun)})
			walk(c)
		}
	}
	walk(t.Root)
	return out
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Offer registers job handle h of user as work, in the order the handles
// are offered (first come, first served within an account). Jobs of users
// without an account are not offered; Offer reports whether h was.
func (t *Tree) Offer(user string, h int) bool {
	n := t.Account(user)
	if n == nil {
		return false
	}
	n.jobs = append(n.jobs, h)
	for x := n; x != nil; x = x.Parent {
		x.work++
	}
	return true
}

// Start prepares Next: call it once after every Offer.
func (t *Tree) Start() {
	t.Compute()
	var prep func(n *Node)
	prep = func(n *Node) {
		n.heap = n.heap[:0]
		for _, c := range n.Children {
			c.prio = c.Priority
			c.hidx = -1
			if c.work > 0 {
				heap.Push(&n.heap, c)
			}
			prep(c)
		}
	}
	prep(t.Root)
}

// Next returns the next job handle to try (walking down from the top by
// priority) and the account it belongs to, or -1 when every job was
// offered.
func (t *Tree) Next() (int, *Node) {
	n := t.Root
	if n.work == 0 {
		return -1, nil
	}
	for len(n.heap) > 0 {
		n = n.heap[0]
	}
	h := n.jobs[n.jnext]
	n.jnext++
	for x := n; x != nil; x = x.Parent {
		x.work--
		if x.Parent != nil {
			if x.work == 0 {
				heap.Remove(&x.Parent.heap, x.hidx)
			}
		}
	}
	return h, n
}

// Started charges a dispatched job's slots to account n, so that later
// Next calls see its lower priority.
func (t *Tree) Started(n *Node, slots int) {
	for x := n; x != nil; x = x.Parent {
		x.Usage.Slots += slots
		x.prio = Priority(x.Shares, x.Usage, t.f)
		if x.Parent != nil && x.hidx >= 0 {
			heap.Fix(&x.Parent.heap, x.hidx)
		}
	}
}

type nodeHeap []*Node

func (h nodeHeap) Len() int { return len(h) }
func (h nodeHeap) Less(i, j int) bool {
	if h[i].prio != h[j].prio {
		return h[i].prio > h[j].prio
	}
	if h[i].order != h[j].order {
		return h[i].order < h[j].order
	}
	return h[i].Name < h[j].Name
}
func (h nodeHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hidx, h[j].hidx = i, j
}
func (h *nodeHeap) Push(x any) {
	n := x.(*Node)
	n.hidx = len(*h)
	*h = append(*h, n)
}
func (h *nodeHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	n.hidx = -1
	*h = old[:len(old)-1]
	return n
}
