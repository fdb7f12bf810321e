// toolwire inbox: answers through the JSON API, and items that arrive and leave through
// its event stream. Embedded in the binary; no other script runs on the page.
"use strict";

(() => {
  const list = document.getElementById("waiting");
  if (!list) return; // the history page needs no script
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";

  const byRequest = (id) =>
    list.querySelector(`li.item[data-request-id="${CSS.escape(id)}"]`);

  const recount = () => {
    const open = list.querySelectorAll("li.item:not(.answering)").length;
    const count = document.getElementById("count");
    if (count) count.textContent = String(open);
    const empty = document.getElementById("empty");
    if (empty) empty.hidden = list.children.length > 0;
  };

  // The form's fields, typed as their schema says.
  const collect = (form) => {
    const data = {};
    for (const input of form.querySelectorAll("[data-field]")) {
      const name = input.dataset.field;
      const type = input.dataset.type;
      if (type === "boolean") data[name] = input.checked;
      else if (input.value === "") continue;
      else if (type === "integer") data[name] = parseInt(input.value, 10);
      else if (type === "number") data[name] = Number(input.value);
      else data[name] = input.value;
    }
    return data;
  };

  document.addEventListener("submit", async (event) => {
    const form = event.target.closest("form.answer");
    if (!form) return;
    event.preventDefault();
    // Only a button answers: never a default, never Enter in a field.
    const action = event.submitter?.value;
    if (!["approve", "decline", "submit"].includes(action)) return;
    const item = form.closest("li.item");
    const status = item.querySelector(".status");
    const body = { request_id: form.dataset.requestId, action };
    const reason = form.querySelector('input[name="reason"]');
    if (action === "decline" && reason && reason.value.trim() !== "") body.reason = reason.value;
    if (action === "submit") body.data = collect(form);
    for (const button of form.querySelectorAll("button")) button.disabled = true;
    // Answered here: it stays, with its result, even when the stream says it left.
    item.classList.add("answering");
    status.textContent = "Sending…";
    let reply;
    let ok = false;
    try {
      const response = await fetch("/api/answer", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body),
      });
      ok = response.ok;
      reply = await response.json().catch(() => ({ error: response.statusText }));
    } catch (error) {
      reply = { error: String(error) };
    }
    item.classList.add(ok ? "done" : "refused");
    item.dataset.outcome = ok ? reply.status : "refused";
    let text = ok ? reply.message : `Not answered: ${reply.error}`;
    if (ok && reply.result) text += `\n${reply.result.text}`;
    status.textContent = text;
    if (!ok) item.classList.add("done");
    recount();
  });

  const since = list.dataset.event ?? "";
  const events = new EventSource(`/api/events?since=${encodeURIComponent(since)}`);
  events.addEventListener("added", (message) => {
    const { item, html } = JSON.parse(message.data);
    if (byRequest(item.request_id)) return;
    const template = document.createElement("template");
    template.innerHTML = html; // rendered and escaped by the server
    const element = template.content.firstElementChild;
    if (element) list.prepend(element);
    recount();
  });
  events.addEventListener("removed", (message) => {
    const { request_id: id } = JSON.parse(message.data);
    const element = byRequest(id);
    // An item this page answered stays, with its result, until the page is left.
    if (element && !element.classList.contains("answering")) element.remove();
    recount();
  });
  events.addEventListener("reload", () => window.location.reload());
})();
