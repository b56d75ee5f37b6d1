#!/usr/bin/env python3
"""Writes datasets/ood/tau/protocol.json: the texts τ³-bench's official
harness puts around a conversation, taken from its source at a pinned commit.

    python3 scripts/tau/extract_protocol.py GIT_DIR COMMIT > datasets/ood/tau/protocol.json

GIT_DIR is a clone of github.com/sierra-research/tau2-bench. Each text is the
value of a module-level string constant, read with Python's `ast` (never
imported or run), with the `.strip()` the module applies to it; the
greeting is the `content=` of `DEFAULT_FIRST_AGENT_MESSAGE`. The NL-assertion
judge's prompts are local to `NLAssertionsEvaluator.evaluate_nl_assertions`:
its system prompt is a plain string, its user prompt an f-string, written
here as a `str.format` template (literal braces doubled).
"""
import ast
import json
import subprocess
import sys

git_dir, commit = sys.argv[1], sys.argv[2]


def source(path):
    return subprocess.run(
        ["git", "-C", git_dir, "show", f"{commit}:{path}"],
        check=True, capture_output=True, text=True,
    ).stdout


def constant(path, name):
    """The string a module-level `NAME = "..."` or `NAME = \"\"\"...\"\"\".strip()` holds."""
    for node in ast.parse(source(path)).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            value = node.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr == "strip"
                and not value.args
            ):
                return ast.literal_eval(value.func.value).strip()
            if isinstance(value, ast.Call):
                # AssistantMessage(role=..., content="...")
                for keyword in value.keywords:
                    if keyword.arg == "content":
                        return ast.literal_eval(keyword.value)
            return ast.literal_eval(value)
    raise SystemExit(f"{name} not found in {path}")


def method_locals(path, class_name, method_name):
    """The string assignments in a method's body, f-strings as templates."""
    for node in ast.walk(ast.parse(source(path))):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == method_name:
                    return {
                        stmt.targets[0].id: template(stmt.value)
                        for stmt in item.body
                        if isinstance(stmt, ast.Assign)
                        and isinstance(stmt.targets[0], ast.Name)
                        and isinstance(stmt.value, (ast.Constant, ast.JoinedStr))
                    }
    raise SystemExit(f"{class_name}.{method_name} not found in {path}")


def template(value):
    if isinstance(value, ast.Constant):
        return value.value
    parts = []
    for part in value.values:
        if isinstance(part, ast.Constant):
            parts.append(part.value.replace("{", "{{").replace("}", "}}"))
        elif (
            isinstance(part, ast.FormattedValue)
            and isinstance(part.value, ast.Name)
            and part.conversion == -1
            and part.format_spec is None
        ):
            parts.append("{" + part.value.id + "}")
        else:
            raise SystemExit(f"unexpected f-string part: {ast.dump(part)}")
    return "".join(parts)


agent = "src/tau2/agent/llm_agent.py"
user = "src/tau2/user/user_simulator.py"
base = "src/tau2/user/user_simulator_base.py"
orchestrator = "src/tau2/orchestrator/orchestrator.py"
guidelines = "data/tau2/user_simulator/simulation_guidelines.md"
nl = "src/tau2/evaluator/evaluator_nl_assertions.py"
config = "src/tau2/config.py"
nl_prompts = method_locals(nl, "NLAssertionsEvaluator", "evaluate_nl_assertions")
protocol = {
    "source": f"sierra-research/tau2-bench commit {commit} (MIT)",
    "agent_instruction": constant(agent, "AGENT_INSTRUCTION"),
    "agent_system_prompt": constant(agent, "SYSTEM_PROMPT"),
    "user_system_prompt": constant(user, "SYSTEM_PROMPT"),
    "user_simulation_guidelines": source(guidelines),
    "first_agent_message": constant(orchestrator, "DEFAULT_FIRST_AGENT_MESSAGE"),
    "stop_tokens": {
        "stop": constant(base, "STOP"),
        "transfer": constant(base, "TRANSFER"),
        "out_of_scope": constant(base, "OUT_OF_SCOPE"),
    },
    "nl_judge": {
        "system_prompt": nl_prompts["system_prompt"],
        "user_prompt": nl_prompts["user_prompt"],
        "model": constant(config, "DEFAULT_LLM_NL_ASSERTIONS"),
        "temperature": constant(config, "DEFAULT_LLM_NL_ASSERTIONS_TEMPERATURE"),
    },
}
json.dump(protocol, sys.stdout, indent=2, ensure_ascii=False)
print()
