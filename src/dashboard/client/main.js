// The dashboard's script: it only enhances pages that work without it (every form posts and
// every page renders on the server). Copy buttons.
const copyButtons = () => {
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy);
      const text = source?.value ?? source?.textContent ?? '';
      let ok = false;
      try {
        await navigator.clipboard.writeText(text);
        ok = true;
      } catch {
        source?.select?.();
        ok = document.execCommand?.('copy') ?? false;
      }
      const status = document.getElementById(`${button.dataset.copy}-status`);
      if (status) status.textContent = ok ? 'Copied.' : 'Select the text and copy it.';
    });
  }
};

copyButtons();
