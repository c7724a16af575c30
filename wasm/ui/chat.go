package ui

import "nexttoken/engine/session"

// withChat gives a model that has a chat template its template's engine,
// web/chat.wasm at url (attachChat), and says why it could not; nil for
// a model without one. A model whose template does not load still reads
// prompts. It blocks: call it from a goroutine of its own.
func withChat(m *session.Model, url string) error {
	if m == nil || m.ChatTemplate == "" {
		return nil
	}
	return attachChat(m, url)
}

// chatURL is where the page finds web/chat.wasm.
func (p *Playground) chatURL() string { return p.ctx.ResolveStaticResource("/web/chat.wasm") }

// noteChat keeps why m's chat template did not load, for the prompt's
// box to say, or forgets it.
func (p *Playground) noteChat(m *session.Model, err error) {
	if m == nil {
		return
	}
	why := ""
	if err != nil {
		why = err.Error()
	}
	p.noteChatOf(m.Name, why)
}

// noteChatOf keeps why the chat template of the model called name did
// not load, or forgets it when why is "".
func (p *Playground) noteChatOf(name, why string) {
	if p.chatErrs == nil {
		p.chatErrs = map[string]string{}
	}
	if why != "" {
		p.chatErrs[name] = "The model's chat template is not there to use: " + why + ". The model reads a prompt as text."
	} else {
		delete(p.chatErrs, name)
	}
}
