// Package pool computes queue-based fairshare (slot pool) allocations: how
// many of a pool's slots each of its queues is entitled to in one
// scheduling pass, from SLOT_SHARE, demand, queue job limits and the
// decayed slot usage LSF keeps per queue.
//
// The allocation is the one every published LSF example is consistent with
// (lsf-reference §3.3, seed 002):
//
//  1. Queues are considered in order (least accumulated usage per share
//     first, then priority; see Order). Each gets
//     min(ceil(total × share/100), remaining, demand).
//  2. Slots left over (queues without enough demand) are redistributed:
//     each queue that still wants slots gets min(ceil(leftover ×
//     share/100), remaining, unmet demand), in the same order.
//  3. Any remainder goes to the queues that still want slots, first queue
//     first.
//
// With 12 slots and shares 50/30/20 this gives 6, 4, 2; with 15 slots 8, 5,
// 2, and 11 and 4 when the 30% queue has no work.
package pool
