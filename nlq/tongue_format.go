package nlq

import "time"

// date writes a day the way answers have written it so far (ISO 8601).
func (t *tongue) date(d time.Time) string { return d.UTC().Format("2006-01-02") }
