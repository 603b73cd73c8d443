// Progressive enhancement only: ask before destructive actions (pages work without JS).
document.addEventListener("submit", function (event) {
  var button = event.submitter;
  var question = button && button.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
