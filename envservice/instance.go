package envservice

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// entry is the Manager's record of one instance. Its one-slot semaphore is
// the instance lock: whoever holds it may call the Instance and read or write
// inst and closed. A channel rather than a sync.Mutex lets waiters give up
// when their context ends and lets the reaper skip busy instances.
type entry struct {
	id      string
	envType string
	taskID  string
	process bool // counts against MaxProcessInstances

	sem    chan struct{}
	inst   Instance // guarded by sem; nil until created
	closed bool     // guarded by sem; true once released, reaped or failed

	// lastAccess is the manager clock's UnixNano at the start or end of the
	// latest call.
	lastAccess atomic.Int64
}

func newEntry(id, envType, taskID string, now time.Time) *entry {
	e := &entry{id: id, envType: envType, taskID: taskID, sem: make(chan struct{}, 1)}
	e.lastAccess.Store(now.UnixNano())
	return e
}

// lock acquires the instance lock or gives up when ctx ends.
func (e *entry) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case e.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tryLock acquires the instance lock if it is free.
func (e *entry) tryLock() bool {
	select {
	case e.sem <- struct{}{}:
		return true
	default:
		return false
	}
}

func (e *entry) unlock() { <-e.sem }

func (e *entry) touch(now time.Time) { e.lastAccess.Store(now.UnixNano()) }

// guard runs environment code, turning a panic into a *PanicError and
// logging its stack.
func guard[T any](m *Manager, op, instanceID string, f func() (T, error)) (res T, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe := &PanicError{Op: op, InstanceID: instanceID, Value: r, Stack: debug.Stack()}
			m.log.Error("environment panicked", "op", op, "instance_id", instanceID,
				"panic", truncate(fmt.Sprint(r), maxPanicValueLen), "stack", string(pe.Stack))
			err = pe
		}
	}()
	return f()
}

// closeInstance closes inst, recovering a panic.
func (m *Manager) closeInstance(id string, inst Instance) error {
	if inst == nil {
		return nil
	}
	_, err := guard(m, "close", id, func() (struct{}, error) { return struct{}{}, inst.Close() })
	return err
}

// maxInstanceIDLen bounds client-chosen instance ids.
const maxInstanceIDLen = 256

// newInstanceID returns an id in the reference's format with a longer
// random part, exp_<unix-seconds>_<32 hex digits>: 128 random bits (the
// reference has 32), so that an id the server minted cannot be guessed.
func newInstanceID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return fmt.Sprintf("exp_%d_%s", now.Unix(), hex.EncodeToString(b[:]))
}
