"""Prompts in YAML configurations: agent templates (``system_template: |``), ``prompts:``/``templates:``
mappings and ``*_message`` keys — and nothing in infrastructure files whose keys only look like prompt keys."""

from __future__ import annotations

import pytest

from tether_lsp.handlers.playground.engine import detect
from tether_lsp.handlers.playground.model import PlaygroundMap, Prompt
from tether_lsp.handlers.playground.resolver import resolve_file_prompts
from tether_lsp.server.syntax import parse_text

AGENT = """agent:
  templates:
    system_template: |-
      You are an autonomous programmer working in a terminal.
    instance_template: |-
      Fix this issue in {{working_dir}}:
      {{ problem_statement }}
    next_step_template: |-
      <observation>
      {{observation}}
      </observation>
    next_step_no_output_template: Your command printed nothing.
    max_observation_length: 80000
    demonstrations:
      - trajectories/demo.traj
  tools:
    command_cancelled_timeout_template: "The command '{command}' took more than {timeout} seconds."
"""


def prompts(source: str) -> list[Prompt]:
    data = source.encode("utf-8")
    return detect("yaml", parse_text("yaml", data), data)


def test_agent_templates_are_prompts_with_their_variables_and_roles() -> None:
    assert [(p.anchor, p.variables, p.role) for p in prompts(AGENT)] == [
        ("agent.templates.system_template", (), "system"),
        ("agent.templates.instance_template", ("working_dir", "problem_statement"), None),
        ("agent.templates.next_step_template", ("observation",), None),
        ("agent.templates.next_step_no_output_template", (), None),
        ("agent.tools.command_cancelled_timeout_template", ("command", "timeout"), None),
    ]


def test_every_prose_value_of_a_prompts_mapping_is_a_prompt() -> None:
    source = 'prompts:\n  triage: |\n    Sort the tickets in {queue} by urgency.\n  review: Review {{path}} now.\n  retries: 3\n  model: "gpt-4o"\n'
    assert [(p.anchor, p.variables) for p in prompts(source)] == [
        ("prompts.triage", ("queue",)),
        ("prompts.review", ("path",)),
    ]


@pytest.mark.parametrize(
    ("source", "anchors"),
    [
        ("system_message: You are terse.\n", ["system_message"]),  # a role in the key
        ('retry_message: "Continue from {last_line}."\n', ["retry_message"]),  # a variable
        ("failure_message: |\n  The tool is missing.\n  Install it first.\n", ["failure_message"]),  # several lines
        ('commit_message: "docs: regenerate the API reference"\n', []),  # one line: a commit or error message
        ("welcome_message: maintenance\n", []),  # not text
    ],
)
def test_a_message_key_needs_a_variable_several_lines_or_a_role(source: str, anchors: list[str]) -> None:
    assert [p.anchor for p in prompts(source)] == anchors


@pytest.mark.parametrize(
    "source",
    [
        "data:\n  user: admin\n",  # a ConfigMap
        "data:\n  user: YWRtaW4=\n  password: c2VjcmV0\n",  # a Secret
        "securityContext:\n  user: root\n",
        'services:\n  web:\n    user: "1000:1000"\n',  # docker compose
        "tasks:\n  - template: src=site.conf.j2 dest=/etc/nginx/{{ site }}.conf\n",  # Ansible's key=value arguments
        "tasks:\n  - user: name={{ item }} state=present groups=wheel\n",
        "spec:\n  template:\n    metadata:\n      name: api\n",  # a pod template is a mapping
        "templates:\n  - emails/welcome.html\n",
        'name_template: "{{ .ProjectName }}_{{ .Version }}"\n',  # Go templates: no words, no variables
        'name_template: "Release {{ .Version }}"\n',
        "path_template: /data/{date}/export.csv\n",
    ],
)
def test_keys_that_only_look_like_prompt_keys_need_text(source: str) -> None:
    assert prompts(source) == []


def test_strong_keys_still_take_any_text() -> None:
    assert [
        p.anchor for p in prompts("summarize_prompt: '{{input}}'\nmessages:\n  - role: user\n    content: Hi!\n")
    ] == [
        "summarize_prompt",
        "messages[0].content",
    ]


def ids(pmap: PlaygroundMap, source: str, now: float) -> list[str]:
    _entry, found, _changed = resolve_file_prompts(
        pmap, "file:///agent.yaml", prompts(source), exists=lambda _u: True, now=now
    )
    return found


def test_agent_template_ids_survive_edits_reorders_and_key_renames() -> None:
    pmap = PlaygroundMap()
    first = ids(pmap, AGENT, 0.0)
    assert len(set(first)) == 5
    edited = AGENT.replace("working in a terminal.", "working in a Linux terminal, one command at a time.")
    assert ids(pmap, edited, 1.0) == first
    system = "    system_template: |-\n      You are an autonomous programmer working in a terminal.\n"
    moved = AGENT.replace(system, "").replace("  tools:\n", "  tools:\n" + system.replace("    ", "    ", 1))
    assert [p.anchor for p in prompts(moved)][-2:] == [
        "agent.tools.system_template",
        "agent.tools.command_cancelled_timeout_template",
    ]
    assert ids(pmap, moved, 2.0) == [*first[1:4], first[0], first[4]]
    renamed = AGENT.replace("next_step_template", "observation_template").replace("templates:", "prompts:")
    assert ids(pmap, renamed, 3.0) == first


@pytest.mark.parametrize(
    "source",
    [  # Ansible asks whoever runs the playbook: not a prompt for a model
        "- hosts: web\n  vars_prompt:\n    - name: release\n      prompt: Which release should be deployed?\n"
        "      private: false\n",
        '- hosts: all\n  vars_prompt: [{name: pw, prompt: "Enter the deploy password please", private: true}]\n',
        "- hosts: web\n  tasks:\n    - name: Drain\n      ansible.builtin.pause:\n"
        "        prompt: Take the host out of the pool, then press Enter\n",
        '- hosts: web\n  tasks:\n    - pause:\n        prompt: "Reload nginx now? Press Enter to continue"\n',
    ],
)
def test_ansible_questions_to_the_operator_are_not_prompts(source: str) -> None:
    assert prompts(source) == []


def test_a_prompt_key_elsewhere_in_a_list_item_is_still_a_prompt() -> None:
    source = "steps:\n  - name: summarize\n    prompt: Summarize the ticket below in three bullet points.\n"
    assert [p.anchor for p in prompts(source)] == ["steps[0].prompt"]
