package main

// card is what the benchmark needs of one generated business card.
type card struct {
	// pid is the participant identifier, "<icd>:<value>" lower-case.
	pid string
	// names are the names of all entities, in order, without repeats.
	names []string
	// country is the first entity's country code.
	country string
	// ids are the entities' additional identifiers (VAT, registry numbers) as written.
	ids []string
}

// appendName adds n to c.names unless it is already there.
func (c *card) appendName(n string) {
	for _, m := range c.names {
		if m == n {
			return
		}
	}
	c.names = append(c.names, n)
}
