package contextmgr

import (
	"fmt"

	"github.com/org/agentevolver"
	"regexp"
	"strings"
	"sync"
)

// DefaultExperienceTemplate wraps retrieved experience before it is
// prepended to the task (reference §5.2); "{}" marks where the experience
// goes. It is the one copy of the text: experience.DefaultTemplate, which
// experience.Injector wraps with, is this constant.
const DefaultExperienceTemplate = "\n\nSome Related Experience to help you to complete the task:<EXP>{}</EXP>\n\n"

// ExperienceStripper removes experience injected at rollout from a message
// before it is trained on (reference §5.4), so that the policy learns to act
// without it. Strip returns the first experience found, the message without
// any injected experience, and whether anything was stripped.
// Implementations are safe for concurrent use.
type ExperienceStripper interface {
	Strip(content string, mode agentevolver.TrainMode) (experience, cleaned string, ok bool)
}

// TemplateStripper strips text that matches an experience template: the
// template with "{}" replaced by a lazy wildcard that also spans newlines.
// The zero value uses DefaultExperienceTemplate.
type TemplateStripper struct {
	// Template is the injection template; it must contain "{}".
	Template string

	once sync.Once
	re   *regexp.Regexp
	err  error
}

// NewTemplateStripper returns a stripper for template, failing when the
// template has no "{}" placeholder.
func NewTemplateStripper(template string) (*TemplateStripper, error) {
	s := &TemplateStripper{Template: template}
	if _, err := s.pattern(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *TemplateStripper) pattern() (*regexp.Regexp, error) {
	s.once.Do(func() {
		tpl := s.Template
		if tpl == "" {
			tpl = DefaultExperienceTemplate
		}
		parts := strings.Split(tpl, "{}")
		if len(parts) < 2 {
			s.err = fmt.Errorf("%w: experience template %q has no {} placeholder", ErrConfig, tpl)
			return
		}
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		s.re, s.err = regexp.Compile("(?s)" + strings.Join(parts, "(.*?)"))
	})
	return s.re, s.err
}

// Strip implements ExperienceStripper. With mode TrainDiscard (or empty,
// the reference's default) the first match's experience is returned and
// every match is removed; any other mode leaves content unchanged. A
// template without "{}" never strips.
func (s *TemplateStripper) Strip(content string, mode agentevolver.TrainMode) (experience, cleaned string, ok bool) {
	if mode.OrDefault() != agentevolver.TrainDiscard {
		return "", content, false
	}
	re, err := s.pattern()
	if err != nil {
		return "", content, false
	}
	m := re.FindStringSubmatchIndex(content)
	if m == nil {
		return "", content, false
	}
	return content[m[2]:m[3]], re.ReplaceAllLiteralString(content, ""), true
}
