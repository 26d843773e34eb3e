package nlq

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// A number and a name in one question (docs/INTERFACE.md §4.3): "Kan Dahl Regnskap ASA
// (org.nr 970 632 131) motta faktura?". The number resolves the id (resolveNumber)
// and the name confirms it: when the participant the number is registered to has
// another name than the one typed, the answer says so first; when no participant
// holds the number, the name is linked as if the number were not written, and the
// answer says that too.

// numberNamePhrases are the two sentences of this, by language: [0] the number is
// another company's (the number quoted, who, the name typed quoted), [1] no
// participant holds the number, the answer is the name's (the number quoted, the name
// typed quoted). Every tongue has both (TestNumberNamePhrases).
var numberNamePhrases = map[string][2]string{
	LangEnglish: {"Note: %[1]s belongs to %[2]s, not to %[3]s.",
		"No participant is registered under %[1]s; this is the answer for the name %[2]s."},
	LangFrench: {"Attention : %[1]s appartient à %[2]s, pas à %[3]s.",
		"Aucun participant n'est enregistré sous %[1]s ; voici la réponse pour le nom %[2]s."},
	LangDutch: {"Let op: %[1]s hoort bij %[2]s, niet bij %[3]s.",
		"Er is geen deelnemer geregistreerd onder %[1]s; dit is het antwoord voor de naam %[2]s."},
	LangGerman: {"Hinweis: %[1]s gehört zu %[2]s, nicht zu %[3]s.",
		"Unter %[1]s ist kein Teilnehmer registriert; dies ist die Antwort für den Namen %[2]s."},
	LangNorwegian: {"Merk: %[1]s tilhører %[2]s, ikke %[3]s.",
		"Ingen deltaker er registrert under %[1]s; dette er svaret for navnet %[2]s."},
	LangSwedish: {"Obs: %[1]s tillhör %[2]s, inte %[3]s.",
		"Ingen deltagare är registrerad under %[1]s; detta är svaret för namnet %[2]s."},
	LangSpanish: {"Atención: %[1]s pertenece a %[2]s, no a %[3]s.",
		"Ningún participante está registrado con %[1]s; esta es la respuesta para el nombre %[2]s."},
	LangItalian: {"Attenzione: %[1]s appartiene a %[2]s, non a %[3]s.",
		"Nessun partecipante è registrato con %[1]s; questa è la risposta per il nome %[2]s."},
	LangDanish: {"Bemærk: %[1]s tilhører %[2]s, ikke %[3]s.",
		"Ingen deltager er registreret under %[1]s; dette er svaret for navnet %[2]s."},
	LangFinnish: {"Huomio: %[1]s kuuluu yritykselle %[2]s, ei yritykselle %[3]s.",
		"Tunnuksella %[1]s ei ole rekisteröity osallistujaa; tämä on vastaus nimelle %[2]s."},
	LangPolish: {"Uwaga: %[1]s należy do %[2]s, a nie do %[3]s.",
		"Pod numerem %[1]s nie jest zarejestrowany żaden uczestnik; to odpowiedź dla nazwy %[2]s."},
}

// numberNamePhrase returns phrase i of numberNamePhrases in t's language, English's when
// it has none.
func numberNamePhrase(t *tongue, i int) string {
	if p, ok := numberNamePhrases[t.code]; ok {
		return p[i]
	}
	return numberNamePhrases[LangEnglish][i]
}

// emptyBrackets removes what is left of "(org.nr 970 632 131)" when the number is cut
// out of a question.
var emptyBrackets = strings.NewReplacer("()", " ", "( )", " ", "[]", " ", "[ ]", " ", ", ,", ",", ",,", ",")

// namedBesides returns the plan of the question without its number (r.plan.Subject):
// the company it also names, searched, with the question's intent, document and
// language; ok false when the rest names none (no word written as a name's).
func (r *run) namedBesides() (Plan, bool) {
	q, subj := r.a.Query, r.plan.Subject
	i := strings.Index(q, subj)
	if subj == "" || i < 0 {
		return Plan{}, false
	}
	rest := emptyBrackets.Replace(q[:i] + " " + q[i+len(subj):])
	p := RulePlanner{}.Plan(rest)
	if p.Subject == "" || len(p.Calls) == 0 || p.Calls[0].Tool != ruleToolSearch || len(peppol.Candidates(p.Subject)) > 0 {
		return Plan{}, false
	}
	name := trimTrailingLower(p.Subject)
	if !strings.ContainsFunc(name, unicode.IsUpper) && strings.ContainsFunc(q, unicode.IsUpper) {
		return Plan{}, false // a question that writes names capitalised names none here
	}
	if len([]rune(name)) < registry.MinQueryLength {
		return Plan{}, false
	}
	call := Call{Tool: ruleToolSearch, Arguments: map[string]any{"q": name}}
	if p.Country != "" {
		call.Arguments["country"] = p.Country
	}
	p.Subject, p.Calls = name, []Call{call}
	p.Intent, p.Document, p.Aspect, p.Language = r.plan.Intent, r.plan.Document, r.plan.Aspect, r.plan.Language
	return p, true
}

// trimTrailingLower drops short lower-case words from the end of a name read around a
// number ("Randers Elektrik med" in "Er Randers Elektrik med CVR 56955313 på Peppol?").
func trimTrailingLower(name string) string {
	words := strings.Fields(name)
	for len(words) > 1 {
		w := words[len(words)-1]
		if len([]rune(w)) > ruleMaxConnector || strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLower(r) }) {
			break
		}
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ")
}

// numberNameNote returns the sentence saying that the participant the number (typed
// as number) resolved to is not the company the question names, "" when it names
// none, the participant has no name to compare, or the names match either way.
func (r *run) numberNameNote(number string, p *registry.Participant) string {
	if p == nil || p.Directory == nil || p.Directory.Name == "" {
		return ""
	}
	np, ok := r.namedBesides()
	if !ok {
		return ""
	}
	if matchName(cutName(np.Subject, true), p.Directory.Name).ok || matchName(cutName(p.Directory.Name, true), np.Subject).ok {
		return ""
	}
	return fmt.Sprintf(numberNamePhrase(r.t, 0), untrusted.Quote(number), label(p.Directory.Name, p.ParticipantID, p.Directory.CountryCode),
		untrusted.Quote(np.Subject))
}

// linkNameBesides answers from the company the question names besides a number no
// participant holds (typed as number), as linking finds it, saying first that the
// number was not found; handled false, with r.plan unchanged, when there is no such
// name or linking does not find it.
func (r *run) linkNameBesides(ctx context.Context, number string) (handled bool, err error) {
	np, ok := r.namedBesides()
	if !ok {
		return false, nil
	}
	saved := r.plan
	r.plan = np
	r.a.Calls = append(r.a.Calls, np.Calls[0])
	handled, err = r.link(ctx, np.Calls[0])
	if !handled {
		r.plan = saved
		r.a.Calls = r.a.Calls[:len(r.a.Calls)-1]
		return false, nil
	}
	if err == nil {
		r.a.Answer = fmt.Sprintf(numberNamePhrase(r.t, 1), untrusted.Quote(number), untrusted.Quote(np.Subject)) + "\n" + r.a.Answer
	}
	return true, err
}
