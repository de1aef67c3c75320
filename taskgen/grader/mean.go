package grader

import "sync"

// Running-mean constants of the mean-constraint judges (reference §4.8).
const (
	// InitialRunningMean is the value both running means start from.
	InitialRunningMean = 0.3
	// FastAlpha is the fast mean's decay: fast = FastAlpha·fast +
	// (1-FastAlpha)·score.
	FastAlpha = 0.9
	// SlowAlpha is the slow mean's decay.
	SlowAlpha = 0.95
)

// runningMean holds a judge's two exponential moving averages of its
// scores. It is safe for concurrent use.
//
// [BUG/QUIRK] fixed: the reference keeps these means but never calls its
// update function, so its judges are always told that their average is
// 0.3000 and must stay near 0.3000. Here every score a judge gives updates
// both, under a lock, in the order the replies arrive.
type runningMean struct {
	mu         sync.Mutex
	fast, slow float64
}

func newRunningMean() *runningMean {
	return &runningMean{fast: InitialRunningMean, slow: InitialRunningMean}
}

// update folds score into both means.
func (m *runningMean) update(score float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fast = FastAlpha*m.fast + (1-FastAlpha)*score
	m.slow = SlowAlpha*m.slow + (1-SlowAlpha)*score
}

// get returns both means, read together.
func (m *runningMean) get() (fast, slow float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fast, m.slow
}
