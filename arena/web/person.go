package web

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// personPlace is the person's place at a game of either kind: the open
// question (of type Q), the person's connections, and the timers that
// stop a game whose person left (Config.PersonTimeout) or does not answer
// (Config.AnswerTimeout). Its fields are guarded by the game's mutex mu;
// notify is the game's notifyLocked and running reports, under mu,
// whether the game still runs.
type personPlace[Q any] struct {
	mu            *sync.Mutex
	notify        func()
	running       func() bool
	personTimeout time.Duration // negative: none
	answerTimeout time.Duration // negative: none

	question *openQuestion[Q]
	qid      int
	conns    int
	absence  *time.Timer
	left     chan struct{} // closed when the absence timer fires
}

// openQuestion is the person's open question and where its answer goes.
type openQuestion[Q any] struct {
	id     int
	q      Q
	answer chan string // buffered 1
}

func newPersonPlace[Q any](mu *sync.Mutex, notify func(), running func() bool, personTimeout, answerTimeout time.Duration) personPlace[Q] {
	return personPlace[Q]{mu: mu, notify: notify, running: running, personTimeout: personTimeout, answerTimeout: answerTimeout, left: make(chan struct{})}
}

// joined counts a connection of the person's: while one is open, no
// question times out for absence.
func (p *personPlace[Q]) joined() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns++
	p.stopAbsenceLocked()
}

// gone uncounts a connection of the person's.
func (p *personPlace[Q]) gone() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns--
	p.watchAbsenceLocked()
}

// watchAbsenceLocked starts the absence timer when a question waits and
// none of the person's connections is open.
func (p *personPlace[Q]) watchAbsenceLocked() {
	if p.personTimeout < 0 || p.conns > 0 || p.question == nil || p.absence != nil || !p.running() {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(p.personTimeout, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		// A timer stopped just as it fired must not count: a connection
		// opened meanwhile, and a later absence has a timer of its own.
		if p.absence == t && p.conns == 0 && p.question != nil {
			p.absence = nil
			close(p.left)
		}
	})
	p.absence = t // before t's function can run: the caller holds mu
}

func (p *personPlace[Q]) stopAbsenceLocked() {
	if p.absence != nil {
		p.absence.Stop()
		p.absence = nil
	}
}

// closeLocked drops the open question and the absence timer, when the
// game ends.
func (p *personPlace[Q]) closeLocked() {
	p.question = nil
	p.stopAbsenceLocked()
}

// currentLocked returns the open question, if any.
func (p *personPlace[Q]) currentLocked() (q Q, id int, ok bool) {
	if p.question == nil {
		return q, 0, false
	}
	return p.question.q, p.question.id, true
}

// answer delivers the reply to the open question that check writes from
// it, if question id is open and check accepts.
func (p *personPlace[Q]) answer(id int, check func(Q) (string, error)) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	open := p.question
	if open == nil {
		return fmt.Errorf("%w: no question is open (it is not your turn)", ErrBadAnswer)
	}
	if id != open.id {
		return fmt.Errorf("%w: question %d is open, not %d", ErrBadAnswer, open.id, id)
	}
	text, err := check(open.q)
	if err != nil {
		return err
	}
	open.answer <- text // never blocks: buffered 1, and the question closes here
	p.question = nil
	p.notify()
	return nil
}

// ask shows the question that build makes (given its id) to the
// person's connections and waits for the answer until ctx ends, the
// person has been gone for personTimeout (ErrPersonLeft) or answerTimeout
// has passed, open connections or not (ErrNoAnswer).
func (p *personPlace[Q]) ask(ctx context.Context, build func(id int) Q) (string, error) {
	ch := make(chan string, 1)
	p.mu.Lock()
	p.qid++
	p.question = &openQuestion[Q]{id: p.qid, q: build(p.qid), answer: ch}
	p.watchAbsenceLocked()
	p.notify()
	p.mu.Unlock()
	var expired <-chan time.Time
	if p.answerTimeout > 0 {
		t := time.NewTimer(p.answerTimeout)
		defer t.Stop()
		expired = t.C
	}
	closeQuestion := func() {
		p.mu.Lock()
		if p.question != nil && p.question.answer == ch {
			p.question = nil
			p.notify()
		}
		p.mu.Unlock()
	}
	select {
	case text := <-ch:
		return text, nil
	case <-ctx.Done():
		closeQuestion()
		return "", ctx.Err()
	case <-p.left:
		closeQuestion()
		return "", fmt.Errorf("%w: no connection for %v", ErrPersonLeft, p.personTimeout)
	case <-expired:
		closeQuestion()
		select {
		case text := <-ch: // answered as the time ran out
			return text, nil
		default:
		}
		return "", fmt.Errorf("%w: no answer within %v", ErrNoAnswer, p.answerTimeout)
	}
}
