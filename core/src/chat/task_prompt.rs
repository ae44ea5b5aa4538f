//! Requests a chat app sends on its own behalf, not the user's: Open WebUI's `### Task:` prompts
//! (title, tags, follow-ups, search queries, autocomplete, image prompt, emoji, tool choice,
//! mixture of agents) and LibreChat's title and summary prompts, recognised by the fixed text of
//! their default templates; and the explicit `<model>+nomemory` model id. Such a request gets no
//! recall and is not logged. Whatever the app, a chat history quoted inside a message
//! (`<chat_history>…</chat_history>` and the like) is never logged as the user's words.

use crate::message::ChatMessage;

/// The suffix of the model id an app's task model is set to: no recall, nothing logged.
pub const NO_MEMORY: &str = "+nomemory";

/// Tags the apps quote a conversation between (opening, closing).
const QUOTES: &[(&str, &str)] = &[
    ("<chat_history>", "</chat_history>"),
    ("<conversation>", "</conversation>"),
    ("<conversation_history>", "</conversation_history>"),
];

/// Fixed text of a user (or, for LibreChat's first title prompt, system) message that only an
/// app's background prompt contains: (which task, phrases that must all occur).
const TASKS: &[(&str, &[&str])] = &[
    // Open WebUI: DEFAULT_EMOJI_GENERATION_PROMPT_TEMPLATE.
    (
        "open-webui emoji",
        &["Your task is to reflect the speaker's likely facial expression through a fitting emoji"],
    ),
    // Open WebUI: DEFAULT_MOA_GENERATION_PROMPT_TEMPLATE.
    (
        "open-webui mixture of agents",
        &[
            "You have been provided with a set of responses from various models to the latest user query",
            "Your task is to synthesize these responses",
        ],
    ),
    // Open WebUI: DEFAULT_TOOLS_FUNCTION_CALLING_PROMPT_TEMPLATE (a system message).
    (
        "open-webui tool choice",
        &[
            "Available Tools:",
            "Your task is to choose and return the correct tool(s) from the list of available tools",
        ],
    ),
    // LibreChat (@librechat/agents): the completion title prompt.
    (
        "librechat title",
        &[
            "Provide a concise, 5-word-or-less title for the conversation",
            "Only return the title itself",
        ],
    ),
    // LibreChat (@librechat/agents): the structured title prompt.
    (
        "librechat title",
        &[
            "Analyze this conversation and provide:",
            "The detected language of the conversation",
        ],
    ),
    // LibreChat: createTitlePrompt (a system message) and the language detector before it.
    (
        "librechat title",
        &["Write a concise title for this conversation in the given language"],
    ),
    (
        "librechat title",
        &["Detect the language used in the following text."],
    ),
    // LibreChat: the assistants endpoint's title request.
    (
        "librechat title",
        &[
            "Please generate a concise title (max 40 characters) for a conversation that starts with",
        ],
    ),
    // LibreChat: _DEFAULT_SUMMARIZER_TEMPLATE and _CUT_OFF_SUMMARIZER.
    (
        "librechat summary",
        &["Summarize the conversation by integrating new lines into the current summary."],
    ),
    (
        "librechat summary",
        &[
            "The following text is cut-off:",
            "Summarize the content as best as you can, noting that it was cut-off.",
        ],
    ),
];

/// Why a request is the app's, not the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Background {
    /// The model id ends in [`NO_MEMORY`].
    NoMemoryModel,
    /// A chat app's own prompt (which one).
    AppTask(&'static str),
}

/// Whether this request is background work: the `+nomemory` model, or a known app task prompt.
pub fn background(model: Option<&str>, messages: &[ChatMessage]) -> Option<Background> {
    if model.is_some_and(|m| m.ends_with(NO_MEMORY)) {
        return Some(Background::NoMemoryModel);
    }
    app_task(messages).map(Background::AppTask)
}

/// The model id without the [`NO_MEMORY`] suffix (what actually generates).
pub fn base_model(model: &str) -> &str {
    model.strip_suffix(NO_MEMORY).unwrap_or(model)
}

/// The app task the request's latest user message (or a system message) is, if any.
pub fn app_task(messages: &[ChatMessage]) -> Option<&'static str> {
    let latest = messages.iter().rev().find(|m| m.role == "user");
    if let Some(m) = latest
        && let Some(task) = task_of(&m.content)
    {
        return Some(task);
    }
    messages
        .iter()
        .filter(|m| matches!(m.role.as_str(), "system" | "developer"))
        .find_map(|m| task_of(&m.content))
}

/// The task one message's text is, if any.
fn task_of(text: &str) -> Option<&'static str> {
    let t = text.trim_start();
    // Open WebUI: every DEFAULT_*_PROMPT_TEMPLATE that quotes the chat starts so (title, tags,
    // follow-ups, search and retrieval queries, image prompt, autocomplete).
    if t.starts_with("### Task:") && t.contains("<chat_history>") {
        return Some("open-webui task");
    }
    TASKS
        .iter()
        .find(|(_, phrases)| phrases.iter().all(|p| text.contains(p)))
        .map(|(task, _)| *task)
}

/// `text` without any quoted chat history: each `<chat_history>…</chat_history>` (and the like)
/// span is cut, tags included; an opening tag never closed cuts to the end.
pub fn without_quoted_history(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = QUOTES
            .iter()
            .filter_map(|(open, close)| rest.find(open).map(|at| (at, *open, *close)))
            .min_by_key(|(at, _, _)| *at);
        let Some((at, open, close)) = next else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..at]);
        let after = &rest[at + open.len()..];
        match after.find(close) {
            Some(end) => rest = &after[end + close.len()..],
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(content: &str) -> ChatMessage {
        ChatMessage::user(content)
    }

    fn system(content: &str) -> ChatMessage {
        ChatMessage {
            role: "system".into(),
            content: content.into(),
            origin: None,
        }
    }

    /// The chat history as Open WebUI renders `{{MESSAGES:END:n}}`.
    const HISTORY: &str = "USER: I just adopted a dog called Biscuit\nASSISTANT: Congratulations!";

    /// Open WebUI's default templates (backend/open_webui/config.py), rendered.
    fn open_webui_prompts() -> Vec<String> {
        let title = format!(
            "### Task:\nGenerate a concise title summarizing the chat history.\n### Guidelines:\n\
             - The title should clearly represent the main theme or subject of the conversation.\n\
             - Keep it short: 2-4 words is best.\n### Output:\nJSON format: {{ \"title\": \"your concise title here\" }}\n\
             ### Examples:\n- {{ \"title\": \"Stock Trends\" }},\n### Chat History:\n<chat_history>\n{HISTORY}\n</chat_history>"
        );
        let tags = format!(
            "### Task:\nGenerate 1-3 broad tags categorizing the main themes of the chat history, along with 1-3 more specific subtopic tags.\n\n\
             ### Guidelines:\n- Start with high-level domains\n\n### Output:\nJSON format: {{ \"tags\": [\"tag1\", \"tag2\", \"tag3\"] }}\n\n\
             ### Chat History:\n<chat_history>\n{HISTORY}\n</chat_history>"
        );
        let follow_ups = format!(
            "### Task:\nSuggest 3-5 relevant follow-up questions or prompts that the user might naturally ask next in this conversation as a **user**, \
             based on the chat history, to help continue or deepen the discussion.\n### Guidelines:\n\
             - Write all follow-up questions from the user\u{2019}s point of view, directed to the assistant.\n### Output:\n\
             JSON format: {{ \"follow_ups\": [\"Question 1?\", \"Question 2?\", \"Question 3?\"] }}\n### Chat History:\n<chat_history>\n{HISTORY}\n</chat_history>"
        );
        let query = format!(
            "### Task:\nAnalyze the chat history to determine the necessity of generating search queries, in the given language. \
             By default, **prioritize generating 1-3 broad and relevant search queries**\n\n### Guidelines:\n\
             - Respond **EXCLUSIVELY** with a JSON object.\n\n### Output:\nStrictly return in JSON format: \n{{\n  \"queries\": [\"query1\", \"query2\"]\n}}\n\n\
             ### Chat History:\n<chat_history>\n{HISTORY}\n</chat_history>"
        );
        let autocomplete = format!(
            "### Task:\nYou are an autocompletion system. Continue the text in `<text>` based on the **completion type** in `<type>` and the given language.  \n\n\
             ### **Output Rules**:\n- Respond only in JSON format: `{{ \"text\": \"<your_completion>\" }}`.\n\n---\n### Context:\n\
             <chat_history>\n{HISTORY}\n</chat_history>\n<type>search query</type>  \n<text>where is</text>  \n#### Output:\n"
        );
        let image = format!(
            "### Task:\nGenerate a detailed prompt for am image generation task based on the given language and context.\n\n\
             ### Output:\nStrictly return in JSON format:\n{{\n    \"prompt\": \"Your detailed description here.\"\n}}\n\n\
             ### Chat History:\n<chat_history>\n{HISTORY}\n</chat_history>"
        );
        let emoji = "Your task is to reflect the speaker's likely facial expression through a fitting emoji. \
             Interpret emotions from the message and reflect their facial expression using fitting, diverse emojis (e.g., \u{1F60A}, \u{1F622}, \u{1F621}, \u{1F631}).\n\n\
             Message: ```I got the job!```"
            .to_string();
        let moa = "You have been provided with a set of responses from various models to the latest user query: \"where to eat?\"\n\n\
             Your task is to synthesize these responses into a single, high-quality response.\n\nResponses from models: \"A\" \"B\""
            .to_string();
        vec![
            title,
            tags,
            follow_ups,
            query,
            autocomplete,
            image,
            emoji,
            moa,
        ]
    }

    #[test]
    fn open_webui_task_prompts_are_background() {
        for p in open_webui_prompts() {
            assert!(app_task(&[user(&p)]).is_some(), "{p}");
            // Also behind the app's own system prompt and earlier turns.
            let m = [system("You are helpful."), user("hello"), user(&p)];
            assert!(background(Some("SmolLM2"), &m).is_some(), "{p}");
        }
        // The tool-choice prompt is a system message; the user's question follows it.
        let tools = "Available Tools: [{\"name\": \"search_web\"}]\n\nYour task is to choose and return the correct tool(s) \
             from the list of available tools based on the query. Follow these guidelines:";
        let m = [system(tools), user("Query: weather in Leith")];
        assert_eq!(app_task(&m), Some("open-webui tool choice"));
    }

    #[test]
    fn librechat_task_prompts_are_background() {
        let prompts = [
            "Provide a concise, 5-word-or-less title for the conversation, using title case conventions. \
             Only return the title itself.\n\nConversation:\nUser: I moved to Leith\nAI: Nice!",
            "Analyze this conversation and provide:\n1. The detected language of the conversation\n\
             2. A concise title in the detected language (5 words or less, no punctuation or quotation)\n\nUser: hi\nAI: hello",
            "Please generate a concise title (max 40 characters) for a conversation that starts with \"hi\"",
            "Summarize the conversation by integrating new lines into the current summary.\n\nEXAMPLE:\nCurrent summary:\n...",
            "The following text is cut-off:\nUser: a long story\n\nSummarize the content as best as you can, noting that it was cut-off.\n\nSummary:",
        ];
        for p in prompts {
            assert!(app_task(&[user(p)]).is_some(), "{p}");
        }
        // createTitlePrompt: the template is the system message, the user's is "Language: …".
        let m = [
            system(
                "Write a concise title for this conversation in the given language. Title in 5 Words or Less. \
                 No Punctuation or Quotation.\nUser: hi\nAI: hello",
            ),
            user("Language: English"),
        ];
        assert_eq!(app_task(&m), Some("librechat title"));
    }

    #[test]
    fn the_users_own_words_are_not_background() {
        for t in [
            "What is my name?",
            "### Task: help me plan a trip",
            "Can you write a concise title for my essay?",
            "Summarize the conversation we had about dogs",
            "Your task is to help me with maths",
        ] {
            assert_eq!(app_task(&[user(t)]), None, "{t}");
            assert_eq!(background(Some("SmolLM2"), &[user(t)]), None, "{t}");
        }
        // A task prompt in an earlier turn does not make the latest one background.
        let p = open_webui_prompts().remove(0);
        assert_eq!(app_task(&[user(&p), user("and my name?")]), None);
    }

    #[test]
    fn the_nomemory_model_is_background_whatever_it_says() {
        let m = [user("What is my name?")];
        assert_eq!(
            background(Some("SmolLM2+nomemory"), &m),
            Some(Background::NoMemoryModel)
        );
        assert_eq!(background(Some("SmolLM2"), &m), None);
        assert_eq!(background(None, &m), None);
        assert_eq!(base_model("SmolLM2+nomemory"), "SmolLM2");
        assert_eq!(base_model("SmolLM2"), "SmolLM2");
    }

    #[test]
    fn a_logged_turn_leaves_quoted_history_out() {
        let text = format!("Sum this up <chat_history>\n{HISTORY}\n</chat_history>");
        let now = "2026-11-30T10:00:00Z".parse().unwrap();
        let lines = crate::chat::log_lines(Some((&text, None)), "ok", None, now);
        assert_eq!(lines[0].content, "Sum this up ");
        let only = format!("<chat_history>{HISTORY}</chat_history>");
        assert!(crate::chat::log_lines(Some((&only, None)), "ok", None, now).is_empty());
    }

    #[test]
    fn quoted_history_is_cut_from_what_is_logged() {
        let t = format!("Translate this:\n<chat_history>\n{HISTORY}\n</chat_history>\nto French");
        assert_eq!(without_quoted_history(&t), "Translate this:\n\nto French");
        assert_eq!(
            without_quoted_history("a <conversation>x</conversation> b <chat_history>y"),
            "a  b "
        );
        assert_eq!(without_quoted_history("no quotes"), "no quotes");
        let cut = without_quoted_history(&open_webui_prompts()[0]);
        assert!(!cut.contains("Biscuit"), "{cut}");
    }
}
