// The time-zone picker (templates/zone_picker.html), on /me and a game's preferences:
// choosing "Other…" opens the full list; a picker marked data-guess (an address that never
// chose a zone) gets the browser's own zone preselected (it still has to press Save).
// Static file: the CSP forbids inline scripts.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  Array.prototype.forEach.call(document.querySelectorAll("select[data-timezone]"), function (select) {
    var form = select.form;
    var other = form && form.querySelector("select[name=timezone_other]");
    var details = form && form.querySelector("details[data-other-zone]");
    var has = function (list, value) {
      return Array.prototype.some.call(list.options, function (o) { return o.value === value; });
    };
    select.addEventListener("change", function () {
      if (details) { details.open = select.value === "other"; }
    });
    if (!select.hasAttribute("data-guess") || typeof Intl === "undefined" || !Intl.DateTimeFormat) { return; }
    var guess = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (guess && has(select, guess)) {
      select.value = guess;
    } else if (guess && other && has(other, guess)) {
      select.value = "other";
      other.value = guess;
      if (details) { details.open = true; }
    }
  });
});
