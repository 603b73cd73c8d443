// The "my games" page (/me/<token>): an address that never chose a time zone gets the
// browser's own zone preselected (it still has to press Save). Static file: the CSP forbids
// inline scripts.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var select = document.querySelector("select[data-timezone][data-guess]");
  if (!select || typeof Intl === "undefined" || !Intl.DateTimeFormat) { return; }
  var guess = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (guess && Array.prototype.some.call(select.options, function (o) { return o.value === guess; })) {
    select.value = guess;
  }
});
