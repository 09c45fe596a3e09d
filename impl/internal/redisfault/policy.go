package redisfault

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/redis/rueidis"
)

// EvictingPolicy returns the first node (in address order) of c whose
// maxmemory-policy is not noeviction, and that policy; "", "" when every
// node keeps its keys until their TTL. Under any other policy Redis may
// evict a key before its TTL (every key of the gate and the store has a
// TTL, so volatile-* policies can evict any of them): a bucket born full
// again, a ban lifted, a lease forgotten, silently. It reads INFO memory
// (which managed offerings that refuse CONFIG still serve) on every node
// the client knows, replicas included: a replica may be promoted.
func EvictingPolicy(ctx context.Context, c rueidis.Client) (node, policy string, err error) {
	nodes := c.Nodes()
	addrs := make([]string, 0, len(nodes))
	for a := range nodes {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	for _, a := range addrs {
		n := nodes[a]
		info, err := n.Do(ctx, n.B().Info().Section("memory").Build()).ToString()
		if err != nil {
			return "", "", fmt.Errorf("INFO memory on %s: %w", a, err)
		}
		p, ok := infoField(info, "maxmemory_policy")
		if !ok {
			return "", "", fmt.Errorf("INFO memory on %s has no maxmemory_policy", a)
		}
		if p != "noeviction" {
			return a, p, nil
		}
	}
	return "", "", nil
}

// infoField is the value of field in an INFO reply.
func infoField(info, field string) (string, bool) {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return v, true
		}
	}
	return "", false
}

// PolicyCheck is what a New does with the nodes' maxmemory-policy: it
// refuses an evicting one unless Accept accepts it.
type PolicyCheck struct {
	Pkg         string                          // the caller's package, for the messages
	Unavailable error                           // wrapped when a node cannot be read
	Evicting    error                           // wrapped when a node evicts and Accept is nil
	Accept      func(node, policy string) error // Config.OnEvictingPolicy; nil refuses
}

// Run reads every node's policy (EvictingPolicy) and returns nil, or the
// error that says which node evicts and what to do.
func (p PolicyCheck) Run(ctx context.Context, c rueidis.Client) error {
	node, policy, err := EvictingPolicy(ctx, c)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", p.Unavailable, err)
	case policy == "":
		return nil
	case p.Accept == nil:
		return fmt.Errorf("%w: node %s has maxmemory-policy %s (set noeviction, or accept the risk with Config.OnEvictingPolicy)", p.Evicting, node, policy)
	}
	if err := p.Accept(node, policy); err != nil {
		return fmt.Errorf("%s: node %s has maxmemory-policy %s: %w", p.Pkg, node, policy, err)
	}
	return nil
}
