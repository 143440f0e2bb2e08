import AlertAPI
