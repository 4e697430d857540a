package forge

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// SyncResult says what SyncComment did, for the log.
type SyncResult struct {
	Created, Edited, Deleted, Unchanged int
	// HumanEdited are roleout's comments a person changed, replaced.
	HumanEdited []int64
}

// SyncComment makes pull request pr's roleout comment parts, in place:
// each part edits the comment that holds it (when its body differs),
// a missing part is created, a deleted one is created again, parts past
// the new count and second copies of a part are deleted. Only comments
// by me (the token's user) that carry Marker are roleout's: a person's
// comment quoting the marker is never touched.
func SyncComment(ctx context.Context, p Provider, me string, pr int, parts CommentParts) (SyncResult, error) {
	var res SyncResult
	comments, err := p.Comments(ctx, pr)
	if err != nil {
		return res, err
	}
	ours := map[int][]Comment{} // by part number, oldest first
	for _, c := range comments {
		if c.Author != me {
			continue
		}
		if n, _, ok := partOf(c.Body); ok {
			ours[n] = append(ours[n], c)
		}
	}
	for _, cs := range ours {
		sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	}
	var errs []error
	for i, body := range parts {
		have := ours[i+1]
		switch {
		case len(have) == 0:
			if _, err := p.CreateComment(ctx, pr, body); err != nil {
				return res, err // the parts after it would come out of order
			}
			res.Created++
		case have[0].Body == body:
			res.Unchanged++
		default:
			if _, intact, _ := partOf(have[0].Body); !intact {
				res.HumanEdited = append(res.HumanEdited, have[0].ID)
			}
			if err := p.EditComment(ctx, pr, have[0].ID, body); err != nil {
				return res, err
			}
			res.Edited++
		}
		if len(have) > 1 {
			for _, dup := range have[1:] {
				errs = append(errs, res.delete(ctx, p, pr, dup.ID))
			}
		}
	}
	for n, cs := range ours {
		if n > len(parts) {
			for _, c := range cs {
				errs = append(errs, res.delete(ctx, p, pr, c.ID))
			}
		}
	}
	return res, errors.Join(errs...)
}

func (res *SyncResult) delete(ctx context.Context, p Provider, pr int, id int64) error {
	if err := p.DeleteComment(ctx, pr, id); err != nil {
		var fe *Error
		if errors.As(err, &fe) && fe.Status == 404 {
			return nil // gone already
		}
		return fmt.Errorf("delete a stale part: %w", err)
	}
	res.Deleted++
	return nil
}
