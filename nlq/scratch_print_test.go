package nlq

import (
	"fmt"
	"github.com/peppolgate/peppolgate/netsim"
	"testing"
)

func TestScratchPrint(t *testing.T) {
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	be := n.Name(netsim.KnownBelgian)
	for _, q := range []string{
		"Kan " + be + " facturen ontvangen?", "Peut-on envoyer des avoirs à " + netsim.KnownCertExpired + " ?",
		"Hvor mange bakerier i Norge?", "Vilka dokumenttyper stöder " + netsim.KnownBelgian + "?",
		"Ist " + netsim.KnownSMLOnly + " bei Peppol?", "Wer ist 0208:0000000097?", "Combien d'entreprises belges sont sur Peppol ?",
		"När går certifikatet för " + netsim.KnownCertExpiring + " ut?", "Hvem er " + netsim.KnownNorwegian + "?", "Quel SMP héberge " + netsim.KnownBelgian + " ?",
		"what is the weather in Oslo", "Hur är vädret i Stockholm?",
	} {
		a, err := e.Ask(t.Context(), q, nil)
		if err != nil {
			fmt.Println(q, "ERR", err)
			continue
		}
		fmt.Printf("Q: %s [%s]\nA: %s\n\n", q, a.Meta.Language, a.Answer)
	}
}
