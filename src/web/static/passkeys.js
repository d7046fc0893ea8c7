// Passkeys on the store's pages (issue 53): a button with data-passkey="create" or "get" asks the
// server for the WebAuthn options (data-options, with the form's CSRF token), runs the browser's
// prompt, puts the answer in the form's "response" field (and the server's ticket in "ticket"),
// and submits the form. Without JavaScript or WebAuthn the button says so; codes still work.
'use strict';
(function () {
  function toBytes(base64url) {
    var base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
    var binary = atob(base64 + '==='.slice((base64.length + 3) % 4));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }
  function fromBytes(buffer) {
    var bytes = new Uint8Array(buffer);
    var binary = '';
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function withIds(list) {
    return (list || []).map(function (entry) {
      return Object.assign({}, entry, { id: toBytes(entry.id) });
    });
  }
  function creation(options) {
    return Object.assign({}, options, {
      challenge: toBytes(options.challenge),
      user: Object.assign({}, options.user, { id: toBytes(options.user.id) }),
      excludeCredentials: withIds(options.excludeCredentials),
    });
  }
  function request(options) {
    return Object.assign({}, options, {
      challenge: toBytes(options.challenge),
      allowCredentials: withIds(options.allowCredentials),
    });
  }
  function answer(credential) {
    var r = credential.response;
    var response = { clientDataJSON: fromBytes(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = fromBytes(r.attestationObject);
      response.transports = typeof r.getTransports === 'function' ? r.getTransports() : [];
    } else {
      response.authenticatorData = fromBytes(r.authenticatorData);
      response.signature = fromBytes(r.signature);
      if (r.userHandle) response.userHandle = fromBytes(r.userHandle);
    }
    return {
      id: credential.id,
      rawId: fromBytes(credential.rawId),
      type: credential.type,
      response: response,
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
    };
  }
  // What the script says comes from the page, in the page's language: the status element's data-say-* attributes.
  function say(form, key, fallback) {
    var status = form.querySelector('[data-passkey-status]');
    if (status) status.textContent = (key && status.getAttribute('data-say-' + key)) || fallback;
  }
  function refused(form) {
    var status = form.querySelector('[data-passkey-status]');
    return (status && status.getAttribute('data-say-refused')) || 'The store refused.';
  }
  document.querySelectorAll('button[data-passkey]').forEach(function (button) {
    var form = button.closest('form');
    if (!window.PublicKeyCredential || !navigator.credentials) {
      button.disabled = true;
      say(form, 'unsupported', 'This browser cannot use passkeys here.');
      return;
    }
    button.addEventListener('click', function (event) {
      event.preventDefault();
      var token = form.querySelector('input[name="csrf_token"]').value;
      button.disabled = true;
      say(form, 'waiting', 'Waiting for the passkey…');
      fetch(button.getAttribute('data-options'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ csrf_token: token }),
        credentials: 'same-origin',
      })
        .then(function (reply) {
          return reply.json().then(function (body) {
            if (!reply.ok) throw new Error(body.detail || refused(form));
            return body;
          });
        })
        .then(function (body) {
          var create = button.getAttribute('data-passkey') === 'create';
          var prompt = create
            ? navigator.credentials.create({ publicKey: creation(body.options) })
            : navigator.credentials.get({ publicKey: request(body.options) });
          return prompt.then(function (credential) {
            form.querySelector('input[name="response"]').value = JSON.stringify(answer(credential));
            var ticket = form.querySelector('input[name="ticket"]');
            if (ticket && body.ticket) ticket.value = body.ticket;
            form.submit();
          });
        })
        .catch(function (error) {
          button.disabled = false;
          if (error && error.name === 'NotAllowedError') say(form, 'closed', 'The passkey prompt was closed.');
          else say(form, null, String(error.message || error));
        });
    });
  });
})();
