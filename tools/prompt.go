package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// RecipientPrompt is the name of the prompt that checks whether a company can receive
// Peppol e-invoices.
const RecipientPrompt = "check_invoice_recipient"

func recipientPrompt() mcp.Prompt {
	return mcp.NewPrompt(RecipientPrompt,
		mcp.WithPromptTitle("Can this company receive Peppol e-invoices?"),
		mcp.WithPromptDescription("Find a company on Peppol by name, VAT number or participant id, and report "+
			"whether and where it can receive e-invoices."),
		mcp.WithArgument("company", mcp.RequiredArgument(),
			mcp.ArgumentDescription("Company name, VAT or registration number, or Peppol participant id (e.g. 0208:0677424046)")),
		mcp.WithArgument("country",
			mcp.ArgumentDescription("Optional ISO 3166 alpha-2 country code to narrow a name search, e.g. BE")),
		mcp.WithArgument("language",
			mcp.ArgumentDescription("Optional language of the answer, one of the eleven /ask answers in: "+strings.Join(promptLanguageCodes(), ", "))),
	)
}

// promptLanguages are the languages /ask reads and answers in (docs/INTERFACE.md §4.3),
// by ISO 639-1 code; the prompt asks for its answer in one of them.
var promptLanguages = map[string]string{
	"en": "English", "fr": "French", "nl": "Dutch", "de": "German", "no": "Norwegian", "sv": "Swedish",
	"es": "Spanish", "it": "Italian", "da": "Danish", "fi": "Finnish", "pl": "Polish",
}

// promptLanguageCodes returns the codes of promptLanguages, sorted.
func promptLanguageCodes() []string {
	codes := make([]string, 0, len(promptLanguages))
	for c := range promptLanguages {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// promptLanguage checks the optional language argument and returns its English name
// ("" when absent); its error lists the codes and never echoes the argument.
func promptLanguage(args map[string]string) (string, error) {
	code := strings.ToLower(strings.TrimSpace(args["language"]))
	if code == "" {
		return "", nil
	}
	if name, ok := promptLanguages[code]; ok {
		return name, nil
	}
	return "", fmt.Errorf("argument language must be one of %s", strings.Join(promptLanguageCodes(), ", "))
}

// recipientArgs checks the prompt's arguments and returns them: company is required and
// at most registry.MaxQueryLength characters (it is searched as q), country is
// optional and two letters, language optional and one of promptLanguages. Its error
// says which argument is wrong and never echoes a long one. CheckMessage runs it before the MCP library sees prompts/get, so that a
// wrong argument is answered as invalid params; the handler runs it again.
func recipientArgs(args map[string]string) (company, country string, err error) {
	company = strings.TrimSpace(args["company"])
	switch n := utf8.RuneCountInString(company); {
	case company == "":
		return "", "", errors.New("argument company is required: a company name, VAT number or Peppol participant id")
	case n > registry.MaxQueryLength:
		return "", "", fmt.Errorf("argument company has %d characters, at most %d are allowed: give a company name, VAT number or Peppol participant id",
			n, registry.MaxQueryLength)
	}
	country, err = registry.ParseCountry(args["country"])
	var re *registry.Error
	if errors.As(err, &re) {
		return "", "", fmt.Errorf("argument %s", re.Message)
	}
	if err != nil {
		return "", "", err
	}
	if _, err := promptLanguage(args); err != nil {
		return "", "", err
	}
	return company, country, nil
}

func recipientPromptHandler(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	company, country, err := recipientArgs(req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Can %q receive Peppol e-invoices?", company)
	if country != "" {
		fmt.Fprintf(&b, " (country: %s)", country)
	}
	b.WriteString("\n\nIf it is a Peppol participant id (<4 digits>:<value>), call lookup_participant with it. " +
		"Otherwise call search_directory with it as q")
	if country != "" {
		fmt.Fprintf(&b, " and country %s", country)
	}
	b.WriteString(", then lookup_participant for the best match. Answer with the participant id, the company name, " +
		"whether it is registered on Peppol (smp not null), its access point endpoint and transport profile, " +
		"and any warnings. If nothing is found, say so plainly; a missing Directory card alone does not prove " +
		"that a company cannot receive Peppol invoices.")
	if language, _ := promptLanguage(req.Params.Arguments); language != "" {
		fmt.Fprintf(&b, " Answer in %s.", language)
	}
	return mcp.NewGetPromptResult("Check whether a company can receive Peppol e-invoices",
		[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(b.String()))}), nil
}

// promptCompleter completes the country argument of the prompt with the countries of
// the participant identifier schemes. Anything else gets no suggestions.
type promptCompleter struct{}

// CompletePromptArgument returns the country or language codes starting with the typed
// value.
func (promptCompleter) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	values := []string{}
	if prompt == RecipientPrompt && arg.Name == "language" {
		prefix := strings.ToLower(strings.TrimSpace(arg.Value))
		for _, c := range promptLanguageCodes() {
			if strings.HasPrefix(c, prefix) {
				values = append(values, c)
			}
		}
	}
	if prompt == RecipientPrompt && arg.Name == "country" {
		prefix := strings.ToUpper(strings.TrimSpace(arg.Value))
		for _, c := range schemeCountries() {
			if strings.HasPrefix(c, prefix) {
				values = append(values, c)
			}
		}
	}
	return &mcp.Completion{Values: values, Total: len(values)}, nil
}

// schemeCountries returns the sorted distinct countries of the scheme code list (at
// most ~60, under MCP's limit of 100 completion values).
func schemeCountries() []string {
	var out []string
	for _, s := range peppol.Schemes() {
		if s.Country != "" && !slices.Contains(out, s.Country) {
			out = append(out, s.Country)
		}
	}
	slices.Sort(out)
	return out
}
