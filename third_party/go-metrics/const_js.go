// Copyright IBM Corp. 2013, 2025
// SPDX-License-Identifier: MIT

package metrics

const (
	// DefaultSignal is used with DefaultInmemSignal
	DefaultSignal = 0x1e
)
