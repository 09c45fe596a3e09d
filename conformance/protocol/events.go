package protocol

// event is one thing the reader goroutine saw on the port's stdout.
type event struct {
	line  int    // the line number on stdout
	hello *Hello // the first line
	rep   reply  // a reply
	err   error  // a line that is not a reply, or the end of stdout (io.EOF)
}

// maxEvents is the most events the reader sends in one batch.
const maxEvents = 64

// takeEvents returns the first event of a batch from the reader and
// queues the rest for popEvent.
func (p *Port) takeEvents(evs []event) event {
	ev := evs[0]
	p.evq, p.evBatch = evs[1:], evs
	p.recycle()
	return ev
}

// popEvent returns the next queued event, if any: every wait for an event
// takes the queued ones first.
func (p *Port) popEvent() (event, bool) {
	if len(p.evq) == 0 {
		return event{}, false
	}
	ev := p.evq[0]
	p.evq = p.evq[1:]
	p.recycle()
	return ev, true
}

// recycle hands the last batch back to the reader once every event of it
// was taken.
func (p *Port) recycle() {
	if len(p.evq) > 0 || p.evBatch == nil {
		return
	}
	select {
	case p.evFree <- p.evBatch[:0]:
	default:
	}
	p.evq, p.evBatch = nil, nil
}

// send hands a batch of events to RunTraces, or drops it once the port is
// dead.
func (p *Port) send(evs []event) {
	select {
	case p.events <- evs:
	case <-p.dead:
	}
}
