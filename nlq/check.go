package nlq

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// check runs the plan's check_participants call and phrases its answer: a summary
// count, then a verdict line per identifier. Each participant found is an item, once;
// each row that failed upstream is a failed call of its own (check_participants with
// that row). It returns an error only when the call was refused or every row failed.
func (r *run) check(ctx context.Context, c Call) error {
	res, err := r.e.call(ctx, c)
	if err != nil {
		return r.callFailed(c, err)
	}
	cr, _ := res.Value.(*tools.CheckResult)
	if cr == nil {
		return &registry.Error{Code: CodeAskFailed, Message: "the question could not be answered; retry later", Err: errors.New("check_participants returned no check result")}
	}
	if n := cr.Summary.Counts.Failed; n > 0 && n == cr.Summary.Rows {
		first := cr.Results[0].Error
		return &registry.Error{Code: CodeAskFailed, Message: "the Peppol network did not answer (" + first.Message + ")", Err: errors.New(first.Message)}
	}
	seen := map[string]bool{}
	for _, row := range cr.Results {
		var failed *FailedCall
		if row.Status == bulk.Failed && row.Error != nil {
			again := map[string]any{"input": row.Input}
			if row.CountryHint != "" {
				again["country"] = row.CountryHint
			}
			args := map[string]any{"rows": []any{again}}
			if docs, ok := c.Arguments["documents"]; ok {
				args["documents"] = docs
			}
			f := FailedCall{Call: Call{Tool: ruleToolCheck, Arguments: args}, Code: registry.Code(row.Error.Code), Message: row.Error.Message}
			r.a.Failed = append(r.a.Failed, f)
			failed = &f
		}
		if row.ParticipantID != "" && !seen[row.ParticipantID] {
			seen[row.ParticipantID] = true
			r.add(r.e.newItem(row.ParticipantID, row.Name, row.Country), failed)
		}
	}
	r.a.Answer = checkAnswer(r.t, r.plan, cr)
	return nil
}

// checkAnswer phrases a check: how many of the identifiers can receive the document
// the question names (or are on Peppol, when it names none), how many could not be
// checked, then one line per identifier with its verdict.
func checkAnswer(t *tongue, plan Plan, cr *tools.CheckResult) string {
	var b strings.Builder
	c := cr.Summary.Counts
	if plan.Document == DocAny {
		fmt.Fprintf(&b, t.chkOnPeppol, c.Receives+c.Blocked+c.RegisteredWithoutDocument, cr.Summary.Rows)
	} else {
		fmt.Fprintf(&b, t.chkReceive, c.Receives, cr.Summary.Rows, docName(t, plan.Document))
	}
	if c.Failed > 0 {
		fmt.Fprintf(&b, t.chkFailedSum, c.Failed)
	}
	for _, row := range cr.Results {
		who := label(row.Name, row.ParticipantID, row.Country)
		var v string
		switch {
		case row.Status == bulk.Blocked && plan.Document != DocAny:
			v = fmt.Sprintf(t.chkBlocked, who, strings.Join(row.Blocked, ", "))
		case row.Status == bulk.Receives, plan.Document == DocAny && (row.Status == bulk.Blocked || row.Status == bulk.RegisteredWithoutDocument):
			v = fmt.Sprintf(t.chkYes, who)
		case row.Status == bulk.RegisteredWithoutDocument:
			v = fmt.Sprintf(t.chkWithout, who, docName(t, plan.Document))
		case row.Status == bulk.NotRegistered:
			v = t.chkNotReg
		case row.Status == bulk.Invalid:
			v = t.chkInvalid
		default:
			v = t.chkFailed
		}
		fmt.Fprintf(&b, "\n- %s%s%s", row.Input, t.colon, v)
	}
	return b.String()
}
