package ui

// WaitingPreview is a pull-request head that waits for its previews.
type WaitingPreview struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
}

// Queue is the running agent's list of pull-request heads waiting for
// previews, in the order they will be made (the agent's preview rounds
// make at most source.pullRequests.maxHeadsPerPoll after each poll).
type Queue interface {
	PreviewsWaiting() []WaitingPreview
}

// maxWaitingShown bounds the heads the overview lists; the rest are
// counted.
const maxWaitingShown = 50

// waiting returns the heads waiting for previews, for a reader who sees
// some app (shown): the refs are the repository's, not an app's, and a
// reader who may see none of the apps learns nothing of it.
func (s *Server) waiting(shown bool) []WaitingPreview {
	if s.Queue == nil || !shown {
		return nil
	}
	return s.Queue.PreviewsWaiting()
}
