/* The replay pages (pbem/templates/replay/step.html): every step is a page of its own, with
   links that work without JavaScript. This adds the keyboard (left and right arrows: the
   previous and next step; Home and End: the first and last) and makes the slider go to its step
   as soon as it is let go, without its "Show" button. */
(function () {
  "use strict";
  var root = document.querySelector("[data-replay]");
  if (!root) { return; }
  var base = root.getAttribute("data-replay-url");
  var current = root.getAttribute("data-step");

  function follow(selector) {
    var link = root.querySelector(selector);
    if (link && link.href) { window.location.assign(link.href); }
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    var target = event.target;
    var tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    if (tag === "input" || tag === "textarea" || tag === "select" || (target && target.isContentEditable)) {
      return;  // the slider moves with the arrows itself; a field keeps its keys
    }
    var where = {ArrowLeft: "[data-replay-prev]", ArrowRight: "[data-replay-next]",
                 Home: "[data-replay-first]", End: "[data-replay-last]"}[event.key];
    if (where) {
      event.preventDefault();
      follow(where);
    }
  });

  var slider = root.querySelector("[data-replay-slider]");
  var output = root.querySelector("[data-replay-output]");
  if (slider) {
    slider.addEventListener("input", function () {
      if (output) { output.textContent = slider.value; }
    });
    slider.addEventListener("change", function () {
      if (slider.value !== current) { window.location.assign(base + "/" + slider.value); }
    });
  }
}());
